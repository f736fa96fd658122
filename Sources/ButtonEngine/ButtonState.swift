/// The part of a button's state that clients see (`state: {held, face, tapCount}`).
public struct ButtonState: Sendable, Equatable {
    /// A press is in progress.
    public var held: Bool
    /// A toggle's face, 0 or 1 (always 0 for a push button unless set).
    public var face: Int
    /// Taps so far in the current series (0 if none).
    public var tapCount: Int

    public init(held: Bool, face: Int, tapCount: Int) {
        self.held = held
        self.face = face
        self.tapCount = tapCount
    }
}
