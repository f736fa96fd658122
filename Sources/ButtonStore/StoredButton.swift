/// A button as persisted: its opaque JSON config plus the state that must survive a restart.
public struct StoredButton: Sendable, Equatable {
    public var id: String
    /// JSON text, opaque to the store.
    public var config: String
    public var face: Int
    public var clock: Int64?
    public var held: Bool
    /// Insertion order; `loadButtons()` returns buttons sorted by it.
    public var position: Int
    /// Taps of a tap series unfinished when the server stopped.
    public var tapCount: Int
    /// The end of an armed window open when the server stopped.
    public var armedUntil: Int64?

    public init(
        id: String, config: String, face: Int = 0, clock: Int64? = nil, held: Bool = false, position: Int = 0, tapCount: Int = 0,
        armedUntil: Int64? = nil
    ) {
        self.id = id
        self.config = config
        self.face = face
        self.clock = clock
        self.held = held
        self.position = position
        self.tapCount = tapCount
        self.armedUntil = armedUntil
    }
}
