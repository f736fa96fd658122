/// A handler as the store keeps it: with its place among its owner's handlers and, for a
/// webhook, its secret (`whsec_…`, never shown again after it is made).
public struct StoredHandler: Sendable, Equatable {
    public var handler: Handler
    /// Order among its owner's handlers (see `ButtonStore.nextHandlerPosition(owner:)`).
    public var position: Int
    public var secret: String?

    public init(_ handler: Handler, position: Int = 0, secret: String? = nil) {
        self.handler = handler
        self.position = position
        self.secret = secret
    }
}
