import ButtonStore

extension ButtonStore {
    /// Every handler the store keeps, as `Handler`s: its rows, grouped by owner and in each
    /// owner's order.
    public func loadHandlers() throws(StoreError) -> [StoredHandler] {
        try handlerRows().map(StoredHandler.init(row:))
    }
}
