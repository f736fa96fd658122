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
    /// A server-made touch-cancel (`max-hold`, `restart`, `reset`, `disabled`), why a
    /// button was `disarmed` (`fired`, `timeout`, `cancel`) or a press `refused`
    /// (`too-short`, `locked-out`).
    public var reason: String?
    /// The pointer the input gave.
    public var pointer: String?
    /// armed: how long the button stays armed (its `confirmMs`).
    public var windowMs: Int64?

    public init(
        durationMs: Int64? = nil,
        tapCount: Int? = nil,
        face: Int? = nil,
        previousFace: Int? = nil,
        repeat: Int? = nil,
        option: String? = nil,
        index: Int? = nil,
        reason: String? = nil,
        pointer: String? = nil,
        windowMs: Int64? = nil
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
        self.windowMs = windowMs
    }
}

extension EventData {
    /// What an event of `type` carries when nothing real happened: a handler's test event
    /// has the fields a receiver of that type reads (a tap its `tapCount`, a toggle its faces),
    /// with made-up values.
    public static func sample(for type: EventType, option: String? = nil) -> EventData {
        switch type {
        case .touchUpInside, .touchUpOutside, .longPressEnd: EventData(durationMs: 100)
        case .longPress: EventData(durationMs: 500)
        case .repeat: EventData(repeat: 1)
        case .tap: EventData(tapCount: 1)
        case .singleTap: EventData(tapCount: 1)
        case .doubleTap: EventData(tapCount: 2)
        case .tripleTap: EventData(tapCount: 3)
        case .quadrupleTap: EventData(tapCount: 4)
        case .quintupleTap: EventData(tapCount: 5)
        case .toggle: EventData(face: 1, previousFace: 0)
        case .select: EventData(option: option)
        case .armed: EventData(windowMs: 5000)
        case .disarmed: EventData(reason: "fired")
        case .refused: EventData(durationMs: 20, reason: "too-short")
        case .touchDown, .touchDragExit, .touchDragEnter, .touchCancel, .sheetOpen, .sheetCancel: EventData()
        }
    }
}
