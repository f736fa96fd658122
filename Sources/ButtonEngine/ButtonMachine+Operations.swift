/// Operations made of several inputs, kept in the engine so that every caller (HTTP, a
/// restart, tests) gets the same rules.
extension ButtonMachine {
    /// A whole press in one call: the down, every timer of `holdMs` of holding (long press,
    /// repeats, max hold), then the up at `down.t + holdMs`. A hold past `maxHoldMs` ends in
    /// the max-hold cancel, and then there is no up to apply.
    public mutating func press(_ down: Input, holdMs: Int64, now: Int64) throws(InputError) -> [GestureEvent] {
        var events: [GestureEvent] = []
        events.reserveCapacity(4)
        try apply(down, now: now, into: &events)
        guard let downT = lastInputT else { return events }
        let upT = downT.saturatingAdd(Swift.max(holdMs, 0))
        fireTimers(through: upT, into: &events)
        if held {
            try apply(Input(.up, t: upT), now: now.saturatingAdd(Swift.max(holdMs, 0)), into: &events)
        }
        return events
    }

    /// A button as a restart finds it. One that was held comes back released with a
    /// `touch-cancel` (`reason: "restart"`); a tap series the stop interrupted ends first with
    /// its n-tap. The events are at `max(now, clock)`, which is also the state's new clock.
    public static func restored(
        config: ButtonConfig, face: Int, clock: Int64?, held: Bool, tapCount: Int, now: Int64
    ) -> (machine: ButtonMachine, events: [GestureEvent], clock: Int64?) {
        let face = config.kind == .toggle ? face : 0
        let machine = ButtonMachine(config: config, face: face, clock: clock, lastInputT: clock)
        guard held || tapCount > 0 else { return (machine, [], clock) }
        let t = Swift.max(now, clock ?? now)
        let events = releasing(held: held, tapCount: tapCount, t: t, reason: "restart")
        return (machine, events, t)
    }

    /// Back to rest (`POST /buttons/{id}/reset`): a held button gets a `touch-cancel`
    /// (`reason: "reset"`), an unfinished tap series ends with its n-tap, the face stays, and
    /// the clock is set to `now` (the server clock), even if an input had pushed it ahead.
    public mutating func reset(now: Int64) -> [GestureEvent] {
        let state = self.state
        let events = Self.releasing(held: state.held, tapCount: state.tapCount, t: now, reason: "reset")
        self = ButtonMachine(config: config, face: state.face, clock: now, lastInputT: now)
        return events
    }

    /// The events that put a button at rest: the n-tap of an unfinished series, then the
    /// cancel of a hold.
    private static func releasing(held: Bool, tapCount: Int, t: Int64, reason: String) -> [GestureEvent] {
        var events: [GestureEvent] = []
        if tapCount > 0 {
            let taps = Swift.min(tapCount, EventType.maxTapCount)
            events.append(GestureEvent(EventType.nTap(taps), t: t, data: EventData(tapCount: taps)))
        }
        if held { events.append(GestureEvent(.touchCancel, t: t, data: EventData(reason: reason))) }
        return events
    }
}
