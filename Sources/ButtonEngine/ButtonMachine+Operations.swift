/// Operations made of several inputs, kept in the engine so that every caller (HTTP, a
/// restart, tests) gets the same rules.
extension ButtonMachine {
    /// A whole press in one call: the down, every timer of `holdMs` of holding (long press,
    /// repeats, max hold), then the up at `down.t + holdMs`. A hold past `maxHoldMs` ends in
    /// the max-hold cancel, and then there is no up to apply.
    public mutating func press(_ down: Input, holdMs: Int64, now: Int64) throws(InputError) -> [GestureEvent] {
        var events: [GestureEvent] = []
        events.reserveCapacity(6)  // down, up-inside, tap, a double tap, the last series's end
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
    /// An armed button (`armedUntil`) stays armed until its window ends, unless the restart
    /// interrupted a press or series: then a window already over ends first (`timeout`), and
    /// one still open after the cancel (`cancel`).
    public static func restored(
        config: ButtonConfig, face: Int, clock: Int64?, held: Bool, tapCount: Int, armedUntil: Int64? = nil, now: Int64
    ) -> (machine: ButtonMachine, events: [GestureEvent], clock: Int64?) {
        let face = config.kind == .toggle ? face : 0
        var machine = ButtonMachine(config: config, face: face, clock: clock, lastInputT: clock)
        if let armedUntil {
            machine.armedUntil = armedUntil
            machine.armedAt = armedUntil.saturatingSubtract(Swift.max(config.confirmMs, 0))
        }
        guard held || tapCount > 0 else { return (machine, [], clock) }
        let t = Swift.max(now, clock ?? now)
        var events: [GestureEvent] = []
        machine.fireTimers(through: t, into: &events)
        events += releasing(held: held, tapCount: tapCount, t: t, reason: "restart")
        if machine.armedUntil != nil { machine.disarm(at: t, reason: "cancel", pointer: nil, into: &events) }
        return (machine, events, t)
    }

    /// Back to rest (`POST /buttons/{id}/reset`): a held button gets a `touch-cancel`
    /// (`reason: "reset"`), an unfinished tap series ends with its n-tap, the face stays, and
    /// the clock is set to `now` (the server clock), even if an input had pushed it ahead.
    /// An armed window and a lockout are cleared with no event (a lockout's end is on the old
    /// clock, which may have been far ahead).
    public mutating func reset(now: Int64) -> [GestureEvent] {
        let state = self.state
        let events = Self.releasing(held: state.held, tapCount: state.tapCount, t: now, reason: "reset")
        self = ButtonMachine(config: config, face: state.face, clock: now, lastInputT: now)
        return events
    }

    /// Enables or disables the button (`config.enabled`, SPEC §4 "Guards"): a disabled
    /// button refuses every input with `InputError.disabled`. Disabling ends what is under
    /// way at the server's `now` mapped to the button's clock (as `setFace` maps it), after
    /// the timers due by then: an open tap series with its n-tap, a held press with a
    /// `touch-cancel` (`reason: "disabled"`), an armed button with `disarmed`
    /// (`reason: "cancel"`). It does so even if `config` was already set disabled, so a
    /// caller may assign the whole new config first. Enabling emits nothing.
    public mutating func setEnabled(_ enabled: Bool, now: Int64) -> [GestureEvent] {
        config.enabled = enabled
        guard !enabled else { return [] }
        let mapped = now.saturatingAdd(clockOffset)
        let t = Swift.max(mapped, clock ?? mapped)
        var events: [GestureEvent] = []
        fireTimers(through: t, into: &events)
        guard held || tapCount > 0 || armedUntil != nil else { return events }
        clock = t
        endSeries(at: t, pointer: nil, into: &events)
        if held {
            endPress()
            events.append(GestureEvent(.touchCancel, t: t, data: EventData(reason: "disabled")))
        }
        if armedUntil != nil { disarm(at: t, reason: "cancel", pointer: nil, into: &events) }
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
