/// The five timers and the order in which they fire.
extension ButtonMachine {
    /// A kind of pending timer. The case order is the tie-break for equal deadlines: the
    /// order a press reaches them, max-hold last; an armed window opened before the press
    /// that is held, so it closes first. (The series-end timer never coexists with the
    /// press timers, so its place does not matter.)
    enum PendingTimer: UInt8 {
        case disarm
        case longPress
        case `repeat`
        case maxHold
        case seriesEnd
    }

    /// The timer to fire next, by deadline and then by the tie-break order.
    func nextTimer() -> (timer: PendingTimer, deadline: Int64)? {
        var best: (timer: PendingTimer, deadline: Int64)?
        if let d = armedUntil { best = (.disarm, d) }
        if let d = longPressDeadline, Self.isEarlier(d, than: best?.deadline) { best = (.longPress, d) }
        if let d = repeatDeadline, Self.isEarlier(d, than: best?.deadline) { best = (.repeat, d) }
        if let d = maxHoldDeadline, Self.isEarlier(d, than: best?.deadline) { best = (.maxHold, d) }
        if let d = seriesEndDeadline, Self.isEarlier(d, than: best?.deadline) { best = (.seriesEnd, d) }
        return best
    }

    @inline(__always)
    private static func isEarlier(_ deadline: Int64, than best: Int64?) -> Bool {
        guard let best else { return true }
        return deadline < best
    }

    /// Fires every timer due at or before `t`, in order, each at its own deadline.
    mutating func fireTimers(through t: Int64, into events: inout [GestureEvent]) {
        while let next = nextTimer(), next.deadline <= t {
            fire(next.timer, at: next.deadline, into: &events)
            clock = Swift.max(clock ?? next.deadline, next.deadline)
        }
    }

    private mutating func fire(_ timer: PendingTimer, at t: Int64, into events: inout [GestureEvent]) {
        switch timer {
        case .disarm:
            // At exactly `confirmMs` after the arming up the window has closed.
            disarm(at: t, reason: "timeout", pointer: nil, into: &events)
        case .longPress:
            longPressDeadline = nil
            // A press of a series that turns into a long press ends the series first.
            endSeries(at: t, pointer: pressPointer, into: &events)
            longPressFired = true
            events.append(
                GestureEvent(.longPress, t: t, data: EventData(durationMs: t.saturatingSubtract(downT), pointer: pressPointer)))
            scheduleRepeat(after: t)
        case .repeat:
            repeatCount += 1
            events.append(GestureEvent(.repeat, t: t, data: EventData(repeat: repeatCount, pointer: pressPointer)))
            scheduleRepeat(after: t)
        case .maxHold:
            endSeries(at: t, pointer: pressPointer, into: &events)
            endPress()
            events.append(GestureEvent(.touchCancel, t: t, data: EventData(reason: "max-hold", pointer: pressPointer)))
            if armedUntil != nil { disarm(at: t, reason: "cancel", pointer: pressPointer, into: &events) }
        case .seriesEnd:
            endSeries(at: t, pointer: pressPointer, into: &events)
        }
    }

    /// Schedules the next repeat, or none if repeat is off or the clock would run out.
    private mutating func scheduleRepeat(after t: Int64) {
        guard config.repeatMs > 0 else {
            repeatDeadline = nil
            return
        }
        let (next, overflow) = t.addingReportingOverflow(config.repeatMs)
        repeatDeadline = overflow ? nil : next
    }
}
