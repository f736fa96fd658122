/// The type-specific payload of a control event: one flat shape so that every consumer
/// (responses, stream, webhooks, scripts) reads the same fields. Nil fields are omitted
/// when encoded.
public struct EventData: Sendable, Equatable {
    /// touch-up-*, long-press, long-press-end.
    public var durationMs: Int64?
    /// tap and the n-tap events.
    public var tapCount: Int?
    /// toggle: the new face.
    public var face: Int?
    /// toggle: the face before.
    public var previousFace: Int?
    /// repeat: 1, 2, ... within the press.
    public var `repeat`: Int?
    /// select: the chosen option's id.
    public var option: String?
    /// select: the chosen option's index.
    public var index: Int?
    /// A server-made touch-cancel: `max-hold` or `restart`.
    public var reason: String?
    /// The pointer the input gave.
    public var pointer: String?

    public init(
        durationMs: Int64? = nil,
        tapCount: Int? = nil,
        face: Int? = nil,
        previousFace: Int? = nil,
        repeat: Int? = nil,
        option: String? = nil,
        index: Int? = nil,
        reason: String? = nil,
        pointer: String? = nil
    ) {
        self.durationMs = durationMs
        self.tapCount = tapCount
        self.face = face
        self.previousFace = previousFace
        self.repeat = `repeat`
        self.option = option
        self.index = index
        self.reason = reason
        self.pointer = pointer
    }
}
