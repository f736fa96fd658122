/// The timing and kind settings of one button, as the gesture engine needs them.
///
/// Validation of ranges is the server's job; the engine only guards against values that
/// would make it misbehave (negative durations count as zero, `maxTaps` is kept in 1...5,
/// `repeatMs <= 0` means no repeat, a guard `<= 0` is off).
public struct ButtonConfig: Sendable, Equatable {
    /// Push or toggle.
    public var kind: ButtonKind
    /// Held this long (or longer) is a long press.
    public var longPressMs: Int64
    /// A down less than this long after a tap's up continues the tap series.
    public var multiTapMs: Int64
    /// The tap series ends as soon as it has this many taps (1...5); 1 whenever `lockoutMs`
    /// or `confirmMs` is on (`firesSingleTapsOnly`).
    public var maxTaps: Int
    /// Interval of `repeat` events after a long press while held; 0 turns repeat off.
    public var repeatMs: Int64
    /// A press held this long is cancelled with `reason: "max-hold"`.
    public var maxHoldMs: Int64
    /// Guard: a press held less than this is a brush, `refused` (`too-short`) instead of a
    /// tap; 0 turns it off.
    public var minPressMs: Int64
    /// Guard: a press whose down comes less than this after the last `tap` cannot tap
    /// (`refused`, `locked-out`); 0 turns it off.
    public var lockoutMs: Int64
    /// Guard: a tap arms the button for this long and only a second, deliberate tap fires;
    /// 0 turns it off.
    public var confirmMs: Int64
    /// A disabled button refuses every input (`InputError.disabled`). Change it with
    /// `ButtonMachine.setEnabled(_:now:)`, which also ends what is under way.
    public var enabled: Bool

    public init(
        kind: ButtonKind = .push,
        longPressMs: Int64 = 500,
        multiTapMs: Int64 = 300,
        maxTaps: Int = 2,
        repeatMs: Int64 = 0,
        maxHoldMs: Int64 = 60000,
        minPressMs: Int64 = 0,
        lockoutMs: Int64 = 0,
        confirmMs: Int64 = 0,
        enabled: Bool = true
    ) {
        self.kind = kind
        self.longPressMs = longPressMs
        self.multiTapMs = multiTapMs
        self.maxTaps = maxTaps
        self.repeatMs = repeatMs
        self.maxHoldMs = maxHoldMs
        self.minPressMs = minPressMs
        self.lockoutMs = lockoutMs
        self.confirmMs = confirmMs
        self.enabled = enabled
    }
}

extension ButtonConfig {
    /// A button with `lockoutMs` or `confirmMs` fires on single taps only (SPEC §3): the
    /// engine runs it with `maxTaps` 1, and any other `maxTaps` is invalid (naming `maxTaps`).
    public var firesSingleTapsOnly: Bool { lockoutMs > 0 || confirmMs > 0 }

    /// The series length the engine uses: `maxTaps` kept within the n-tap events that exist,
    /// and 1 for a button that fires on single taps only.
    var effectiveMaxTaps: Int {
        firesSingleTapsOnly ? 1 : Swift.min(Swift.max(maxTaps, 1), EventType.maxTapCount)
    }

    /// Whether any guard that judges an up is on: one check keeps a button without guards on
    /// its plain path.
    @inline(__always)
    var hasUpGuards: Bool { (minPressMs | lockoutMs | confirmMs) != 0 }
}
