/// Deleting handler rows, with their delivery logs: what the store does on its own when a
/// button or sheet goes (or a config import drops a handler). Reading and writing a handler
/// is `Handlers`' (`ButtonStore+Handlers.swift`), with the `Handler` value.
extension ButtonStore {
    /// Deletes a handler and its whole delivery log. Returns whether it existed.
    @discardableResult
    public func deleteHandler(id: String) throws(StoreError) -> Bool {
        try withConnection { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                try Self.deleteHandler(id: id, in: connection)
            }
        }
    }

    @discardableResult
    package static func deleteHandler(id: String, in connection: Connection) throws(StoreError) -> Bool {
        try deleteDeliveries(handler: id, in: connection)
        let delete = try connection.statement("DELETE FROM handlers WHERE id = ?1")
        delete.bind(id, at: 1)
        try delete.run()
        return connection.changes > 0
    }

    package static func deleteHandlers(owner: String, in connection: Connection) throws(StoreError) {
        let handlers = try connection.statement("SELECT id FROM handlers WHERE owner = ?1")
        handlers.bind(owner, at: 1)
        for id in try handlers.rows({ $0.text(0) }) { try deleteDeliveries(handler: id, in: connection) }
        let delete = try connection.statement("DELETE FROM handlers WHERE owner = ?1")
        delete.bind(owner, at: 1)
        try delete.run()
    }
}
