/// A control event as the engine emits it: the server adds `id`, `seq`, `button`/`sheet`
/// and `at` when it records it.
public struct GestureEvent: Sendable, Equatable {
    public var type: EventType
    /// On the button's clock (ms), non-decreasing within one button.
    public var t: Int64
    public var data: EventData

    public init(_ type: EventType, t: Int64, data: EventData = EventData()) {
        self.type = type
        self.t = t
        self.data = data
    }
}
