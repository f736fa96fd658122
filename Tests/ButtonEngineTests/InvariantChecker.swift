import ButtonEngine

/// Follows one button's event stream and records every violation of the rules that must
/// hold whatever the input: presses open and close once, one long press per press, no tap
/// after a long press, one n-tap per series that had taps (ahead of the press that ended
/// it without a tap), toggles alternate, and `t` never goes back. And the guards: no tap of a
/// press shorter than `minPressMs` or while locked out, no tap from an unarmed confirm button,
/// every `armed` closed by exactly one `disarmed`, each `refused` for its stated reason.
struct InvariantChecker {
    let config: ButtonConfig
    private(set) var violations: [String] = []

    private(set) var inPress = false
    private(set) var tapsInSeries = 0
    private(set) var face = 0
    private(set) var seriesCount = 0
    private(set) var nTapCount = 0
    private var lastT = Int64.min
    private var downT: Int64 = 0
    private var longPressInPress = false
    private var repeatsInPress = 0
    private var lastTapUpT: Int64 = 0
    private var previous: GestureEvent?
    private var upDuration: Int64 = 0
    /// The last `tap`'s `t`: the start of a lockout.
    private var lastFireT: Int64?
    private var armedAt: Int64?
    private(set) var armedUntil: Int64?
    private(set) var armedCount = 0
    private(set) var disarmedCount = 0
    private(set) var refusedCount = 0
    /// The events come from disabling (or a reset), which ends a series at any `t`.
    private var ending = false

    init(config: ButtonConfig, face: Int = 0) {
        self.config = config
        self.face = face
    }

    private mutating func check(_ condition: Bool, _ message: String, _ event: GestureEvent) {
        if !condition, violations.count < 20 { violations.append("\(message) at \(event.text)") }
    }

    mutating func consume(_ events: [GestureEvent]) {
        for event in events { consume(event) }
    }

    /// Events of `setEnabled(false, …)`: what was under way ends there and then.
    mutating func consumeEnding(_ events: [GestureEvent]) {
        ending = true
        consume(events)
        ending = false
    }

    private var lockedOut: Bool {
        guard config.lockoutMs > 0, let lastFireT else { return false }
        return downT < lastFireT + config.lockoutMs
    }

    mutating func consume(_ e: GestureEvent) {
        defer {
            previous = e
            lastT = e.t
        }
        check(e.t >= lastT, "t went back from \(lastT)", e)
        let maxTaps = config.firesSingleTapsOnly ? 1 : min(max(config.maxTaps, 1), 5)
        switch e.type {
        case .touchDown:
            check(!inPress, "touch-down inside a press", e)
            check(tapsInSeries < maxTaps, "series at maxTaps still open", e)
            if tapsInSeries > 0 {
                check(e.t - lastTapUpT < config.multiTapMs, "series continued after multiTapMs", e)
            }
            inPress = true
            downT = e.t
            longPressInPress = false
            repeatsInPress = 0
        case .touchDragExit, .touchDragEnter:
            check(inPress, "drag outside a press", e)
        case .longPress:
            check(inPress, "long-press outside a press", e)
            check(!longPressInPress, "second long-press in one press", e)
            check(tapsInSeries == 0, "long-press before its series' n-tap", e)
            check(e.data.durationMs == e.t - downT && e.t - downT == config.longPressMs, "long-press duration", e)
            longPressInPress = true
        case .repeat:
            check(inPress && longPressInPress, "repeat without a long press", e)
            repeatsInPress += 1
            check(e.data.repeat == repeatsInPress, "repeat count", e)
            check(e.t == downT + config.longPressMs + Int64(repeatsInPress) * config.repeatMs, "repeat time", e)
        case .touchUpInside, .touchUpOutside:
            check(inPress, "touch-up outside a press", e)
            check(e.data.durationMs == e.t - downT, "touch-up duration", e)
            upDuration = e.data.durationMs ?? 0
            if e.type == .touchUpOutside { check(tapsInSeries == 0, "touch-up-outside before its series' n-tap", e) }
            inPress = false
        case .touchCancel:
            check(inPress, "touch-cancel outside a press", e)
            check(tapsInSeries == 0, "touch-cancel before its series' n-tap", e)
            if e.data.reason == "max-hold" { check(e.t - downT == config.maxHoldMs, "max-hold time", e) }
            if e.data.reason == "disabled" { check(ending, "a disabled cancel without disabling", e) }
            inPress = false
        case .longPressEnd:
            check(longPressInPress, "long-press-end without a long press", e)
            check(previous?.type == .touchUpInside || previous?.type == .touchUpOutside, "long-press-end not after an up", e)
            check(e.data.durationMs == previous?.data.durationMs, "long-press-end duration", e)
        case .tap:
            check(previous?.type == .touchUpInside, "tap not right after touch-up-inside", e)
            check(!longPressInPress, "tap after a long press", e)
            if tapsInSeries == 0 { seriesCount += 1 }
            tapsInSeries += 1
            check(tapsInSeries <= maxTaps, "more taps than maxTaps", e)
            check(e.data.tapCount == tapsInSeries, "tapCount", e)
            lastTapUpT = e.t
            check(upDuration >= config.minPressMs, "tap of a press shorter than minPressMs", e)
            check(!lockedOut, "tap while locked out", e)
            if config.confirmMs > 0 {
                check(armedAt != nil, "tap from an unarmed confirm button", e)
                if let armedAt { check(downT >= armedAt + config.multiTapMs, "fired by a nervous double tap", e) }
            }
            lastFireT = e.t
        case .toggle:
            check(e.data.previousFace == face, "toggle from the wrong face", e)
            if let new = e.data.face { face = new }
            if config.kind == .push { check(previous?.type != .tap, "toggle on a push button", e) }
        case .singleTap, .doubleTap, .tripleTap, .quadrupleTap, .quintupleTap:
            check(tapsInSeries > 0, "n-tap without taps", e)
            check(e.data.tapCount == tapsInSeries && e.type == EventType.nTap(tapsInSeries), "n-tap count", e)
            let atOnce = e.t == lastTapUpT && tapsInSeries == maxTaps
            let byTimer = e.t == lastTapUpT + config.multiTapMs
            check(atOnce || byTimer || inPress || ending, "n-tap at an unexpected time", e)
            tapsInSeries = 0
            nTapCount += 1
        case .armed:
            check(config.confirmMs > 0 && e.data.windowMs == config.confirmMs, "armed without confirmMs", e)
            check(previous?.type == .touchUpInside && previous?.t == e.t, "armed not right after touch-up-inside", e)
            check(armedAt == nil, "armed while armed", e)
            check(upDuration >= config.minPressMs, "armed by a press shorter than minPressMs", e)
            check(!lockedOut, "armed while locked out", e)
            armedCount += 1
            armedAt = e.t
            armedUntil = e.t + config.confirmMs
        case .disarmed:
            check(armedAt != nil, "disarmed while not armed", e)
            switch e.data.reason {
            case "fired":
                check(previous?.type == .singleTap && lastTapUpT == e.t, "fired without its single tap", e)
            case "timeout":
                check(e.t == armedUntil, "timed out at the wrong t", e)
            case "cancel":
                let afterPress = previous?.type == .touchUpOutside || previous?.type == .touchCancel
                check(afterPress && previous?.t == e.t || ending, "cancelled but not by a press", e)
            default:
                check(false, "disarmed for an unknown reason", e)
            }
            disarmedCount += 1
            armedAt = nil
            armedUntil = nil
        case .refused:
            check(previous?.type == .touchUpInside && previous?.t == e.t, "refused not right after touch-up-inside", e)
            refusedCount += 1
            switch e.data.reason {
            case "too-short":
                check(e.data.durationMs == upDuration && upDuration < config.minPressMs, "refused too-short wrongly", e)
            case "locked-out":
                check(lockedOut && upDuration >= config.minPressMs, "refused locked-out wrongly", e)
            default:
                check(false, "refused for an unknown reason", e)
            }
        case .sheetOpen, .select, .sheetCancel:
            check(false, "sheet event from a button", e)
        }
    }

    /// Once every timer has fired (the machine is idle), nothing may be left open.
    mutating func finish() {
        if inPress { violations.append("a press never ended") }
        if tapsInSeries != 0 { violations.append("a series never ended") }
        if seriesCount != nTapCount { violations.append("\(seriesCount) series but \(nTapCount) n-tap events") }
        if armedAt != nil { violations.append("an armed window never closed") }
        if armedCount != disarmedCount { violations.append("\(armedCount) armed but \(disarmedCount) disarmed") }
    }
}
