/// The timing and kind settings of one button, as the gesture engine needs them.
///
/// Validation of ranges is the server's job; the engine only guards against values that
/// would make it misbehave (negative durations count as zero, `maxTaps` is kept in 1...5,
/// `repeatMs <= 0` means no repeat).
public struct ButtonConfig: Sendable, Equatable {
    /// Push or toggle.
    public var kind: ButtonKind
    /// Held this long (or longer) is a long press.
    public var longPressMs: Int64
    /// A down less than this long after a tap's up continues the tap series.
    public var multiTapMs: Int64
    /// The tap series ends as soon as it has this many taps (1...5).
    public var maxTaps: Int
    /// Interval of `repeat` events after a long press while held; 0 turns repeat off.
    public var repeatMs: Int64
    /// A press held this long is cancelled with `reason: "max-hold"`.
    public var maxHoldMs: Int64

    public init(
        kind: ButtonKind = .push,
        longPressMs: Int64 = 500,
        multiTapMs: Int64 = 300,
        maxTaps: Int = 2,
        repeatMs: Int64 = 0,
        maxHoldMs: Int64 = 60000
    ) {
        self.kind = kind
        self.longPressMs = longPressMs
        self.multiTapMs = multiTapMs
        self.maxTaps = maxTaps
        self.repeatMs = repeatMs
        self.maxHoldMs = maxHoldMs
    }
}

extension ButtonConfig {
    /// The series length the engine uses: `maxTaps` kept within the n-tap events that exist.
    var effectiveMaxTaps: Int { Swift.min(Swift.max(maxTaps, 1), EventType.maxTapCount) }
}
