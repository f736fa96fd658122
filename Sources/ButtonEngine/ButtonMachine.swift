/// One button's gesture state machine: raw touch input in, control events out.
///
/// A value type with no I/O, so the server can apply a batch to copies and keep them only
/// if every input succeeded, and tests can drive it with nothing but inputs and times.
/// Time is the button's own logical clock (the largest `t` it has seen); timers are
/// deadlines on that clock and fire either before a later input (in deadline order, each at
/// its own deadline) or in real time through `fireDue(now:)`. `Equatable` compares the
/// whole internal state, which is what tests of atomicity and replay need.
public struct ButtonMachine: Sendable, Equatable {
    /// May be changed between inputs; it takes effect for timers scheduled afterwards.
    public var config: ButtonConfig

    /// The largest `t` seen: inputs, fired timer deadlines and `setFace`.
    public internal(set) var clock: Int64?
    /// The `t` the last input gave (its effective `t` if it gave none); a later input with an
    /// earlier `t` is out of order.
    public private(set) var lastInputT: Int64?
    /// Button clock minus server clock at the last input, so that timers fire on time in
    /// real time even when the client's clock is skewed.
    public internal(set) var clockOffset: Int64 = 0

    // The press in progress (or the last one, once it ended).
    var held = false
    var face: Int
    var tapCount = 0
    var downT: Int64 = 0
    var inside = true
    var pressPointer: String?
    var longPressFired = false
    var repeatCount = 0

    // Pending timers; nil when not scheduled. The press timers exist only while held, the
    // series-end timer only while not held, and the disarm timer while armed.
    var longPressDeadline: Int64?
    var repeatDeadline: Int64?
    var maxHoldDeadline: Int64?
    var seriesEndDeadline: Int64?

    // Guards (SPEC §4 "Guards"). While a confirm button is armed: the arming up's `t`, and
    // the window's end, which is also the disarm timer's deadline. After a tap with
    // `lockoutMs` on: the `t` before which a down cannot tap.
    var armedAt: Int64?
    var armedUntil: Int64?
    var lockedUntil: Int64?

    /// - Parameters:
    ///   - face: a toggle's face, e.g. as stored before a restart.
    ///   - clock: the logical clock restored after a restart; the button starts not held.
    ///   - lastInputT: the last input's `t` restored after a restart (defaults to none).
    public init(config: ButtonConfig, face: Int = 0, clock: Int64? = nil, lastInputT: Int64? = nil) {
        self.config = config
        self.face = face
        self.clock = clock
        self.lastInputT = lastInputT
    }

    /// What clients see of the button.
    public var state: ButtonState {
        ButtonState(held: held, face: face, tapCount: tapCount, armedUntil: armedUntil)
    }

    /// The earliest pending timer on the button's clock, nil if none.
    public var nextDeadline: Int64? { nextTimer()?.deadline }

    /// Applies one input and returns the events it produced, preceded by those of every
    /// timer due at or before the input's effective `t`.
    ///
    /// Atomic: if it throws, `self` is unchanged.
    public mutating func apply(_ input: Input, now: Int64) throws(InputError) -> [GestureEvent] {
        var events: [GestureEvent] = []
        events.reserveCapacity(4)
        try apply(input, now: now, into: &events)
        return events
    }

    /// `apply(_:now:)`, appending to `events`: a press's down and up fill one array.
    mutating func apply(_ input: Input, now: Int64, into events: inout [GestureEvent]) throws(InputError) {
        guard config.enabled else { throw .disabled }
        let t: Int64
        if let given = input.t {
            if let last = lastInputT, given < last { throw .outOfOrder(lastInputT: last) }
            // A t before a timer that already fired is applied at that timer's time.
            t = Swift.max(given, clock ?? given)
        } else {
            t = Swift.max(now, clock ?? now)
        }
        // Validate before mutating anything. Of all timers only max-hold ends a press, so
        // whether the button is held once the due timers have fired is known up front.
        let heldAtT = held && !(maxHoldDeadline.map { $0 <= t } ?? false)
        switch input.kind {
        case .down:
            if heldAtT { throw .alreadyDown }
        case .move, .up, .cancel:
            if !heldAtT { throw .notDown }
        }

        fireTimers(through: t, into: &events)
        clock = t
        lastInputT = input.t ?? t
        clockOffset = t.saturatingSubtract(now)

        switch input.kind {
        case .down: down(at: t, pointer: input.pointer, into: &events)
        case .move: move(at: t, inside: input.inside, pointer: input.pointer, into: &events)
        case .up: up(at: t, inside: input.inside, pointer: input.pointer, into: &events)
        case .cancel: cancel(at: t, pointer: input.pointer, into: &events)
        }
    }

    /// Fires, in real time, every timer whose deadline is at or before the server's `now`
    /// mapped to the button's clock; each event carries its own deadline as `t`.
    public mutating func fireDue(now: Int64) -> [GestureEvent] {
        advance(to: now.saturatingAdd(clockOffset))
    }

    /// Fires every timer due at or before `t` on the button's clock.
    public mutating func advance(to t: Int64) -> [GestureEvent] {
        var events: [GestureEvent] = []
        fireTimers(through: t, into: &events)
        return events
    }

    /// Sets a toggle's face; emits `toggle` (with `face` and `previousFace`) if it changed.
    ///
    /// The event's `t` is the server's `now` mapped to the button's clock (never before the
    /// clock); timers due by then fire first so events stay in `t` order.
    public mutating func setFace(_ face: Int, now: Int64) -> [GestureEvent] {
        guard face != self.face else { return [] }
        let mapped = now.saturatingAdd(clockOffset)
        let t = Swift.max(mapped, clock ?? mapped)
        var events: [GestureEvent] = []
        fireTimers(through: t, into: &events)
        clock = t
        let previous = self.face
        self.face = face
        events.append(GestureEvent(.toggle, t: t, data: EventData(face: face, previousFace: previous)))
        return events
    }
}
