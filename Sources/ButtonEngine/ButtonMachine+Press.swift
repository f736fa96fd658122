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
            return
        }

        events.append(GestureEvent(.touchUpInside, t: t, data: EventData(durationMs: duration, pointer: pointer)))
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
