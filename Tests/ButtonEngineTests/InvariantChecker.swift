import ButtonEngine

/// Follows one button's event stream and records every violation of the rules that must
/// hold whatever the input: presses open and close once, one long press per press, no tap
/// after a long press, one n-tap per series that had taps (ahead of the press that ended
/// it without a tap), toggles alternate, and `t` never goes back.
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

    mutating func consume(_ e: GestureEvent) {
        defer {
            previous = e
            lastT = e.t
        }
        check(e.t >= lastT, "t went back from \(lastT)", e)
        let maxTaps = min(max(config.maxTaps, 1), 5)
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
            if e.type == .touchUpOutside { check(tapsInSeries == 0, "touch-up-outside before its series' n-tap", e) }
            inPress = false
        case .touchCancel:
            check(inPress, "touch-cancel outside a press", e)
            check(tapsInSeries == 0, "touch-cancel before its series' n-tap", e)
            if e.data.reason == "max-hold" { check(e.t - downT == config.maxHoldMs, "max-hold time", e) }
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
        case .toggle:
            check(e.data.previousFace == face, "toggle from the wrong face", e)
            if let new = e.data.face { face = new }
            if config.kind == .push { check(previous?.type != .tap, "toggle on a push button", e) }
        case .singleTap, .doubleTap, .tripleTap, .quadrupleTap, .quintupleTap:
            check(tapsInSeries > 0, "n-tap without taps", e)
            check(e.data.tapCount == tapsInSeries && e.type == EventType.nTap(tapsInSeries), "n-tap count", e)
            let atOnce = e.t == lastTapUpT && tapsInSeries == maxTaps
            let byTimer = e.t == lastTapUpT + config.multiTapMs
            check(atOnce || byTimer || inPress, "n-tap at an unexpected time", e)
            tapsInSeries = 0
            nTapCount += 1
        case .sheetOpen, .select, .sheetCancel:
            check(false, "sheet event from a button", e)
        }
    }

    /// Once every timer has fired (the machine is idle), nothing may be left open.
    mutating func finish() {
        if inPress { violations.append("a press never ended") }
        if tapsInSeries != 0 { violations.append("a series never ended") }
        if seriesCount != nTapCount { violations.append("\(seriesCount) series but \(nTapCount) n-tap events") }
    }
}
