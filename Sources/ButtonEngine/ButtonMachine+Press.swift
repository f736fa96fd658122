/// The four inputs. Each runs after validation and after the due timers have fired, at the
/// input's effective `t`.
extension ButtonMachine {
    mutating func down(at t: Int64, pointer: String?, into events: inout [GestureEvent]) {
        // A pending series-end timer means the previous tap's up was less than multiTapMs
        // ago (a due one has just fired), so this press continues the series.
        seriesEndDeadline = nil
        held = true
        downT = t
        inside = true
        pressPointer = pointer
        longPressFired = false
        repeatCount = 0
        repeatDeadline = nil
        longPressDeadline = t.saturatingAdd(Swift.max(config.longPressMs, 0))
        maxHoldDeadline = t.saturatingAdd(Swift.max(config.maxHoldMs, 0))
        events.append(GestureEvent(.touchDown, t: t, data: EventData(pointer: pointer)))
    }

    mutating func move(at t: Int64, inside newInside: Bool?, pointer: String?, into events: inout [GestureEvent]) {
        guard let newInside, newInside != inside else { return }
        inside = newInside
        let type: EventType = newInside ? .touchDragEnter : .touchDragExit
        events.append(GestureEvent(type, t: t, data: EventData(pointer: pointer ?? pressPointer)))
    }

    mutating func up(at t: Int64, inside explicitInside: Bool?, pointer: String?, into events: inout [GestureEvent]) {
        let pointer = pointer ?? pressPointer
        let isInside = explicitInside ?? inside
        let duration = t.saturatingSubtract(downT)
        let wasLongPress = longPressFired
        endPress()

        if wasLongPress {
            // The series already ended when the long press fired.
            let type: EventType = isInside ? .touchUpInside : .touchUpOutside
            events.append(GestureEvent(type, t: t, data: EventData(durationMs: duration, pointer: pointer)))
            events.append(GestureEvent(.longPressEnd, t: t, data: EventData(durationMs: duration, pointer: pointer)))
            return
        }
        guard isInside else {
            endSeries(at: t, pointer: pointer, into: &events)
            events.append(GestureEvent(.touchUpOutside, t: t, data: EventData(durationMs: duration, pointer: pointer)))
            // Sliding off an armed key is how an operator backs out.
            if armedUntil != nil { disarm(at: t, reason: "cancel", pointer: pointer, into: &events) }
            return
        }
        if config.hasUpGuards || armedUntil != nil {
            guardedUpInside(at: t, duration: duration, pointer: pointer, into: &events)
            return
        }

        events.append(GestureEvent(.touchUpInside, t: t, data: EventData(durationMs: duration, pointer: pointer)))
        tap(at: t, pointer: pointer, into: &events)
    }

    /// The tap of an up inside (after its `touch-up-inside`): `tap`, a toggle's `toggle`, and
    /// the n-tap if the series reaches `maxTaps`.
    private mutating func tap(at t: Int64, pointer: String?, into events: inout [GestureEvent]) {
        tapCount += 1
        events.append(GestureEvent(.tap, t: t, data: EventData(tapCount: tapCount, pointer: pointer)))
        if config.kind == .toggle {
            let previous = face
            face = previous == 0 ? 1 : 0
            events.append(GestureEvent(.toggle, t: t, data: EventData(face: face, previousFace: previous, pointer: pointer)))
        }
        if tapCount >= config.effectiveMaxTaps {
            endSeries(at: t, pointer: pointer, into: &events)
        } else {
            seriesEndDeadline = t.saturatingAdd(Swift.max(config.multiTapMs, 0))
        }
    }

    mutating func cancel(at t: Int64, pointer: String?, into events: inout [GestureEvent]) {
        let pointer = pointer ?? pressPointer
        endSeries(at: t, pointer: pointer, into: &events)
        endPress()
        events.append(GestureEvent(.touchCancel, t: t, data: EventData(pointer: pointer)))
        if armedUntil != nil { disarm(at: t, reason: "cancel", pointer: pointer, into: &events) }
    }

    /// What the guards make of an up inside that would tap, judged in the order of SPEC §4
    /// "Guards": `minPressMs`, then `lockoutMs`, then `confirmMs`.
    enum Verdict: Equatable {
        /// No guard objects: the plain tap.
        case tap
        /// Held less than `minPressMs`.
        case tooShort
        /// Its down came before the last tap's `t` + `lockoutMs`.
        case lockedOut
        /// A confirm button not armed: this press arms it.
        case arm
        /// Armed, and its down came at least `multiTapMs` after the arming up.
        case fire
        /// Armed, and its down came sooner: a nervous double tap does nothing.
        case tooSoon
    }

    func verdict(duration: Int64) -> Verdict {
        if config.minPressMs > 0 && duration < config.minPressMs { return .tooShort }
        if config.lockoutMs > 0, let lockedUntil, downT < lockedUntil { return .lockedOut }
        if let armedAt {
            return downT >= armedAt.saturatingAdd(Swift.max(config.multiTapMs, 0)) ? .fire : .tooSoon
        }
        return config.confirmMs > 0 ? .arm : .tap
    }

    /// An up inside on a button with a guard on (or still armed).
    private mutating func guardedUpInside(at t: Int64, duration: Int64, pointer: String?, into events: inout [GestureEvent]) {
        let verdict = verdict(duration: duration)
        let upInside = GestureEvent(.touchUpInside, t: t, data: EventData(durationMs: duration, pointer: pointer))
        if verdict == .tap || verdict == .fire {
            events.append(upInside)
            tap(at: t, pointer: pointer, into: &events)
            if config.lockoutMs > 0 { lockedUntil = t.saturatingAdd(config.lockoutMs) }
            guard verdict == .fire else { return }
            // A fire is a whole single tap even if the config changed since the arming.
            endSeries(at: t, pointer: pointer, into: &events)
            disarm(at: t, reason: "fired", pointer: pointer, into: &events)
            return
        }
        // A press without a tap: its series' n-tap first, as for a press that goes up outside.
        endSeries(at: t, pointer: pointer, into: &events)
        events.append(upInside)
        switch verdict {
        case .tooShort:
            events.append(GestureEvent(.refused, t: t, data: EventData(durationMs: duration, reason: "too-short", pointer: pointer)))
        case .lockedOut:
            events.append(GestureEvent(.refused, t: t, data: EventData(reason: "locked-out", pointer: pointer)))
        case .arm:
            armedAt = t
            armedUntil = t.saturatingAdd(config.confirmMs)
            events.append(GestureEvent(.armed, t: t, data: EventData(pointer: pointer, windowMs: config.confirmMs)))
        case .tooSoon, .tap, .fire:
            break  // a nervous double tap: the button stays armed
        }
    }

    /// Closes the armed window with `disarmed` (`fired`, `timeout` or `cancel`).
    mutating func disarm(at t: Int64, reason: String, pointer: String?, into events: inout [GestureEvent]) {
        armedAt = nil
        armedUntil = nil
        events.append(GestureEvent(.disarmed, t: t, data: EventData(reason: reason, pointer: pointer)))
    }

    /// The press is over: not held, its timers gone.
    mutating func endPress() {
        held = false
        longPressDeadline = nil
        repeatDeadline = nil
        maxHoldDeadline = nil
    }

    /// Ends the tap series, emitting its n-tap event if it had taps.
    mutating func endSeries(at t: Int64, pointer: String?, into events: inout [GestureEvent]) {
        seriesEndDeadline = nil
        guard tapCount > 0 else { return }
        let count = tapCount
        tapCount = 0
        events.append(GestureEvent(.nTap(count), t: t, data: EventData(tapCount: count, pointer: pointer)))
    }
}
