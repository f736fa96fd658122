/// The part of a button's state that clients see (`state: {held, face, tapCount, armed,
/// armedUntil}`).
public struct ButtonState: Sendable, Equatable {
    /// A press is in progress.
    public var held: Bool
    /// A toggle's face, 0 or 1 (always 0 for a push button unless set).
    public var face: Int
    /// Taps so far in the current series (0 if none).
    public var tapCount: Int
    /// While a confirm button is armed: the `t` its window ends (on the button's clock).
    public var armedUntil: Int64?

    /// A confirm button's first tap armed it and its window is open.
    public var armed: Bool { armedUntil != nil }

    public init(held: Bool, face: Int, tapCount: Int, armedUntil: Int64? = nil) {
        self.held = held
        self.face = face
        self.tapCount = tapCount
        self.armedUntil = armedUntil
    }
}
