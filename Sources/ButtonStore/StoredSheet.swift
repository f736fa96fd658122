/// An action sheet as persisted: its opaque JSON config and its place in the registry.
public struct StoredSheet: Sendable, Equatable {
    public var id: String
    /// JSON text, opaque to the store.
    public var config: String
    /// Insertion order; `loadSheets()` returns sheets sorted by it.
    public var position: Int

    public init(id: String, config: String, position: Int = 0) {
        self.id = id
        self.config = config
        self.position = position
    }
}
