/// The new live state of one button, written in the same transaction as the events that changed it.
public struct ButtonStateChange: Sendable, Equatable {
    public var id: String
    public var face: Int
    public var clock: Int64?
    public var held: Bool
    /// Taps so far in an unfinished tap series (its n-tap event is still to come).
    public var tapCount: Int
    /// While a confirm button is armed: the `t` its window ends, so a restart keeps the window.
    public var armedUntil: Int64?

    public init(id: String, face: Int, clock: Int64?, held: Bool, tapCount: Int = 0, armedUntil: Int64? = nil) {
        self.id = id
        self.face = face
        self.clock = clock
        self.held = held
        self.tapCount = tapCount
        self.armedUntil = armedUntil
    }
}
