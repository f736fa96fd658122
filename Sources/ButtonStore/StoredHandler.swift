/// A webhook or script handler attached to a button or sheet, as persisted.
public struct StoredHandler: Sendable, Equatable {
    public var id: String
    /// `"button:door"` or `"sheet:s1"`; see ``owner(button:)`` and ``owner(sheet:)``.
    public var owner: String
    /// JSON text, opaque to the store.
    public var config: String
    public var secret: String?
    public var enabled: Bool
    /// Order among its owner's handlers; stored as given (see `ButtonStore.nextHandlerPosition(owner:)`).
    public var position: Int

    public init(id: String, owner: String, config: String, secret: String? = nil, enabled: Bool = true, position: Int = 0) {
        self.id = id
        self.owner = owner
        self.config = config
        self.secret = secret
        self.enabled = enabled
        self.position = position
    }

    /// The `owner` value of a button's handlers.
    public static func owner(button id: String) -> String { "button:" + id }

    /// The `owner` value of a sheet's handlers.
    public static func owner(sheet id: String) -> String { "sheet:" + id }
}
