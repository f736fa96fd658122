import ButtonEngine
import Testing

/// SPEC §4 "Guards": `minPressMs` and `lockoutMs`, their boundaries, and the order in which
/// the guards judge an up inside that would tap.
@Suite struct GuardTests {
    static let minPress = ButtonConfig(minPressMs: 50)
    static let lockout = ButtonConfig(maxTaps: 1, lockoutMs: 1000)

    static let minPressScenarios: [Scenario] = [
        Scenario(
            "held minPressMs - 1 is a brush: refused too-short, no tap, no series",
            config: minPress,
            [.down(0), .up(49), .advance(10_000)],
            ["touch-down@0", "touch-up-inside@49 durationMs=49", "refused@49 durationMs=49 reason=too-short"]),
        Scenario(
            "held exactly minPressMs taps",
            config: minPress,
            [.down(0), .up(50), .advance(10_000)],
            ["touch-down@0", "touch-up-inside@50 durationMs=50", "tap@50 tapCount=1", "single-tap@350 tapCount=1"]),
        Scenario(
            "a brush in a series ends it as a press without a tap: its n-tap first",
            config: ButtonConfig(maxTaps: 3, minPressMs: 50),
            [.down(0), .up(60), .down(100), .up(110), .advance(10_000)],
            [
                "touch-down@0", "touch-up-inside@60 durationMs=60", "tap@60 tapCount=1", "touch-down@100",
                "single-tap@110 tapCount=1", "touch-up-inside@110 durationMs=10", "refused@110 durationMs=10 reason=too-short",
            ]),
        Scenario(
            "a brush does not flip a toggle",
            config: ButtonConfig(kind: .toggle, minPressMs: 50),
            [.down(0), .up(20), .down(100), .up(200), .advance(10_000)],
            [
                "touch-down@0", "touch-up-inside@20 durationMs=20", "refused@20 durationMs=20 reason=too-short",
                "touch-down@100", "touch-up-inside@200 durationMs=100", "tap@200 tapCount=1",
                "toggle@200 face=1 previousFace=0", "single-tap@500 tapCount=1",
            ]),
        Scenario(
            "up outside, cancel and long press are not judged",
            config: minPress,
            [.down(0), .up(10, inside: false), .down(20), .cancel(25), .down(100), .up(700), .advance(10_000)],
            [
                "touch-down@0", "touch-up-outside@10 durationMs=10", "touch-down@20", "touch-cancel@25", "touch-down@100",
                "long-press@600 durationMs=500", "touch-up-inside@700 durationMs=600", "long-press-end@700 durationMs=600",
            ]),
    ]

    @Test(arguments: minPressScenarios)
    func minPress(_ scenario: Scenario) throws {
        #expect(try scenario.run() == scenario.expected)
    }

    static let lockoutScenarios: [Scenario] = [
        Scenario(
            "a down before the tap's t + lockoutMs is refused locked-out where the tap would be",
            config: lockout,
            [.down(0), .up(10), .down(500), .up(520), .advance(10_000)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1", "single-tap@10 tapCount=1",
                "touch-down@500", "touch-up-inside@520 durationMs=20", "refused@520 reason=locked-out",
            ]),
        Scenario(
            "a down exactly at the tap's t + lockoutMs taps",
            config: lockout,
            [.down(0), .up(10), .down(1010), .up(1020)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1", "single-tap@10 tapCount=1",
                "touch-down@1010", "touch-up-inside@1020 durationMs=10", "tap@1020 tapCount=1", "single-tap@1020 tapCount=1",
            ]),
        Scenario(
            "the down decides: one at t + lockoutMs - 1 is locked out though its up comes later",
            config: lockout,
            [.down(0), .up(10), .down(1009), .up(1100)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1", "single-tap@10 tapCount=1",
                "touch-down@1009", "touch-up-inside@1100 durationMs=91", "refused@1100 reason=locked-out",
            ]),
        Scenario(
            "a refused press does not extend the lockout",
            config: lockout,
            [.down(0), .up(10), .down(900), .up(950), .down(1010), .up(1020)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1", "single-tap@10 tapCount=1",
                "touch-down@900", "touch-up-inside@950 durationMs=50", "refused@950 reason=locked-out",
                "touch-down@1010", "touch-up-inside@1020 durationMs=10", "tap@1020 tapCount=1", "single-tap@1020 tapCount=1",
            ]),
        Scenario(
            "long press, repeat, up outside and cancel are not affected",
            config: ButtonConfig(maxTaps: 1, repeatMs: 100, lockoutMs: 1000),
            [.down(0), .up(10), .down(100), .up(720), .down(800), .up(805, inside: false), .down(810), .cancel(820)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1", "single-tap@10 tapCount=1",
                "touch-down@100", "long-press@600 durationMs=500", "repeat@700 repeat=1", "touch-up-inside@720 durationMs=620",
                "long-press-end@720 durationMs=620", "touch-down@800", "touch-up-outside@805 durationMs=5",
                "touch-down@810", "touch-cancel@820",
            ]),
        Scenario(
            "a locked-out press does not flip a toggle",
            config: ButtonConfig(kind: .toggle, maxTaps: 1, lockoutMs: 1000),
            [.down(0), .up(10), .down(100), .up(110)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1", "toggle@10 face=1 previousFace=0",
                "single-tap@10 tapCount=1", "touch-down@100", "touch-up-inside@110 durationMs=10",
                "refused@110 reason=locked-out",
            ]),
        Scenario(
            "lockoutMs runs the button with maxTaps 1 whatever maxTaps says",
            config: ButtonConfig(maxTaps: 5, lockoutMs: 100),
            [.down(0), .up(10), .down(50), .up(60)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1", "single-tap@10 tapCount=1",
                "touch-down@50", "touch-up-inside@60 durationMs=10", "refused@60 reason=locked-out",
            ]),
        Scenario(
            "minPressMs is judged before lockoutMs",
            config: ButtonConfig(maxTaps: 1, minPressMs: 50, lockoutMs: 1000),
            [.down(0), .up(60), .down(100), .up(110), .down(200), .up(300)],
            [
                "touch-down@0", "touch-up-inside@60 durationMs=60", "tap@60 tapCount=1", "single-tap@60 tapCount=1",
                "touch-down@100", "touch-up-inside@110 durationMs=10", "refused@110 durationMs=10 reason=too-short",
                "touch-down@200", "touch-up-inside@300 durationMs=100", "refused@300 reason=locked-out",
            ]),
    ]

    @Test(arguments: lockoutScenarios)
    func lockout(_ scenario: Scenario) throws {
        #expect(try scenario.run() == scenario.expected)
    }

    @Test func theGuardEventsAreSpelledAsOnTheWire() {
        #expect([EventType.armed, .disarmed, .refused].map(\.rawValue) == ["armed", "disarmed", "refused"])
        #expect(["armed", "disarmed", "refused"].compactMap(EventType.init(rawValue:)) == [.armed, .disarmed, .refused])
        #expect([EventType.armed, .disarmed, .refused].allSatisfy { !$0.isNTap })
        // A handler's test event carries what a receiver of each reads.
        #expect(EventData.sample(for: .armed).windowMs != nil)
        #expect(EventData.sample(for: .disarmed).reason == "fired")
        #expect(EventData.sample(for: .refused).reason == "too-short")
    }

    /// The guards that fire on single taps only; `minPressMs` leaves `maxTaps` as it is.
    @Test(arguments: [
        (ButtonConfig(), false), (ButtonConfig(minPressMs: 50), false), (ButtonConfig(lockoutMs: 50), true),
        (ButtonConfig(confirmMs: 500), true), (ButtonConfig(lockoutMs: 0, confirmMs: 0), false),
    ])
    func firesSingleTapsOnly(config: ButtonConfig, single: Bool) {
        #expect(config.firesSingleTapsOnly == single)
    }

    @Test func guardsAreOffByDefault() {
        let config = ButtonConfig()
        #expect(config.minPressMs == 0 && config.lockoutMs == 0 && config.confirmMs == 0 && config.enabled)
    }
}
