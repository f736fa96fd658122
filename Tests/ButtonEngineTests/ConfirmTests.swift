import ButtonEngine
import Testing

/// SPEC §4 "Guards", `confirmMs`: arm, then fire; the nervous double tap, the window's end,
/// backing out by sliding off or cancelling, and the order against the other guards.
@Suite struct ConfirmTests {
    static let confirm = ButtonConfig(maxTaps: 1, confirmMs: 2000)
    static let armedAt10 = ["touch-down@0", "touch-up-inside@10 durationMs=10", "armed@10 windowMs=2000"]

    static let scenarios: [Scenario] = [
        Scenario(
            "the first tap arms: no tap, no n-tap",
            config: confirm,
            [.down(0), .up(10)],
            armedAt10),
        Scenario(
            "a second press whose down is exactly multiTapMs after the arming up fires",
            config: confirm,
            [.down(0), .up(10), .down(310), .up(320), .advance(100_000)],
            armedAt10 + [
                "touch-down@310", "touch-up-inside@320 durationMs=10", "tap@320 tapCount=1", "single-tap@320 tapCount=1",
                "disarmed@320 reason=fired",
            ]),
        Scenario(
            "one whose down is multiTapMs - 1 after is a nervous double tap: nothing, still armed",
            config: confirm,
            [.down(0), .up(10), .down(309), .up(315), .advance(100_000)],
            armedAt10 + ["touch-down@309", "touch-up-inside@315 durationMs=6", "disarmed@2010 reason=timeout"]),
        Scenario(
            "multiTapMs counts from the arming up, not from a nervous tap's",
            config: confirm,
            [.down(0), .up(10), .down(100), .up(305), .down(310), .up(320)],
            armedAt10 + [
                "touch-down@100", "touch-up-inside@305 durationMs=205", "touch-down@310", "touch-up-inside@320 durationMs=10",
                "tap@320 tapCount=1", "single-tap@320 tapCount=1", "disarmed@320 reason=fired",
            ]),
        Scenario(
            "the window ends exactly confirmMs after the arming up",
            config: confirm,
            [.down(0), .up(10), .advance(2009), .advance(2010)],
            armedAt10 + ["disarmed@2010 reason=timeout"]),
        Scenario(
            "a down exactly at the window's end finds it closed and arms again",
            config: confirm,
            [.down(0), .up(10), .down(2010), .up(2020), .advance(100_000)],
            armedAt10 + [
                "disarmed@2010 reason=timeout", "touch-down@2010", "touch-up-inside@2020 durationMs=10",
                "armed@2020 windowMs=2000", "disarmed@4020 reason=timeout",
            ]),
        Scenario(
            "a press held across the window's end arms again: armed is judged at the up",
            config: confirm,
            [.down(0), .up(10), .down(2009), .up(2050), .advance(100_000)],
            armedAt10 + [
                "touch-down@2009", "disarmed@2010 reason=timeout", "touch-up-inside@2050 durationMs=41",
                "armed@2050 windowMs=2000", "disarmed@4050 reason=timeout",
            ]),
        Scenario(
            "the window ends in real time on the server's clock",
            config: confirm,
            [.down(0), .up(10), .fireDue(now: 2009), .fireDue(now: 2010)],
            armedAt10 + ["disarmed@2010 reason=timeout"]),
        Scenario(
            "sliding off an armed key backs out: disarmed cancel after touch-up-outside",
            config: confirm,
            [.down(0), .up(10), .down(400), .move(450, inside: false), .up(500), .advance(100_000)],
            armedAt10 + [
                "touch-down@400", "touch-drag-exit@450", "touch-up-outside@500 durationMs=100", "disarmed@500 reason=cancel",
            ]),
        Scenario(
            "an explicit up outside backs out too",
            config: confirm,
            [.down(0), .up(10), .down(400), .up(500, inside: false)],
            armedAt10 + ["touch-down@400", "touch-up-outside@500 durationMs=100", "disarmed@500 reason=cancel"]),
        Scenario(
            "a cancelled press of an armed key: disarmed cancel after touch-cancel",
            config: confirm,
            [.down(0), .up(10), .down(400), .cancel(450), .advance(100_000)],
            armedAt10 + ["touch-down@400", "touch-cancel@450", "disarmed@450 reason=cancel"]),
        Scenario(
            "a max-hold cancel of an armed key disarms it",
            config: ButtonConfig(maxTaps: 1, maxHoldMs: 1000, confirmMs: 5000),
            [.down(0), .up(10), .down(400), .advance(100_000)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "armed@10 windowMs=5000", "touch-down@400",
                "long-press@900 durationMs=500", "touch-cancel@1400 reason=max-hold", "disarmed@1400 reason=cancel",
            ]),
        Scenario(
            "a long press of an armed key neither fires nor disarms",
            config: confirm,
            [.down(0), .up(10), .down(400), .up(1000), .advance(100_000)],
            armedAt10 + [
                "touch-down@400", "long-press@900 durationMs=500", "touch-up-inside@1000 durationMs=600",
                "long-press-end@1000 durationMs=600", "disarmed@2010 reason=timeout",
            ]),
        Scenario(
            "a first press that goes up outside or is cancelled does not arm",
            config: confirm,
            [.down(0), .up(10, inside: false), .down(20), .cancel(30), .advance(100_000)],
            ["touch-down@0", "touch-up-outside@10 durationMs=10", "touch-down@20", "touch-cancel@30"]),
        Scenario(
            "after a fire the next tap arms again",
            config: confirm,
            [.down(0), .up(10), .down(400), .up(410), .down(500), .up(510), .advance(100_000)],
            armedAt10 + [
                "touch-down@400", "touch-up-inside@410 durationMs=10", "tap@410 tapCount=1", "single-tap@410 tapCount=1",
                "disarmed@410 reason=fired", "touch-down@500", "touch-up-inside@510 durationMs=10", "armed@510 windowMs=2000",
                "disarmed@2510 reason=timeout",
            ]),
        Scenario(
            "confirmMs runs the button with maxTaps 1 whatever maxTaps says",
            config: ButtonConfig(maxTaps: 3, confirmMs: 2000),
            [.down(0), .up(10), .down(400), .up(410), .advance(100_000)],
            armedAt10 + [
                "touch-down@400", "touch-up-inside@410 durationMs=10", "tap@410 tapCount=1", "single-tap@410 tapCount=1",
                "disarmed@410 reason=fired",
            ]),
        Scenario(
            "minPressMs is judged before confirmMs: a brush neither arms nor fires, and the button stays armed",
            config: ButtonConfig(maxTaps: 1, minPressMs: 50, confirmMs: 2000),
            [.down(0), .up(20), .down(100), .up(160), .down(500), .up(520), .down(600), .up(660)],
            [
                "touch-down@0", "touch-up-inside@20 durationMs=20", "refused@20 durationMs=20 reason=too-short",
                "touch-down@100", "touch-up-inside@160 durationMs=60", "armed@160 windowMs=2000", "touch-down@500",
                "touch-up-inside@520 durationMs=20", "refused@520 durationMs=20 reason=too-short", "touch-down@600",
                "touch-up-inside@660 durationMs=60", "tap@660 tapCount=1", "single-tap@660 tapCount=1",
                "disarmed@660 reason=fired",
            ]),
        Scenario(
            "lockoutMs is judged before confirmMs: a locked-out press does not arm; the lockout starts at the fire",
            config: ButtonConfig(maxTaps: 1, lockoutMs: 3000, confirmMs: 2000),
            [.down(0), .up(10), .down(400), .up(410), .down(1000), .up(1010), .down(3410), .up(3420), .advance(100_000)],
            armedAt10 + [
                "touch-down@400", "touch-up-inside@410 durationMs=10", "tap@410 tapCount=1", "single-tap@410 tapCount=1",
                "disarmed@410 reason=fired", "touch-down@1000", "touch-up-inside@1010 durationMs=10",
                "refused@1010 reason=locked-out", "touch-down@3410", "touch-up-inside@3420 durationMs=10",
                "armed@3420 windowMs=2000", "disarmed@5420 reason=timeout",
            ]),
        Scenario(
            "pointers: the arming press's on armed, the firing press's on the fire, none on a timeout",
            config: confirm,
            [.down(0, pointer: "a"), .up(10), .down(400, pointer: "b"), .up(410), .down(500, pointer: "c"), .up(510), .advance(100_000)],
            [
                "touch-down@0 pointer=a", "touch-up-inside@10 durationMs=10 pointer=a", "armed@10 windowMs=2000 pointer=a",
                "touch-down@400 pointer=b", "touch-up-inside@410 durationMs=10 pointer=b", "tap@410 tapCount=1 pointer=b",
                "single-tap@410 tapCount=1 pointer=b", "disarmed@410 reason=fired pointer=b", "touch-down@500 pointer=c",
                "touch-up-inside@510 durationMs=10 pointer=c", "armed@510 windowMs=2000 pointer=c", "disarmed@2510 reason=timeout",
            ]),
    ]

    @Test(arguments: scenarios)
    func confirm(_ scenario: Scenario) throws {
        #expect(try scenario.run() == scenario.expected)
    }

    static let toggleScenarios: [Scenario] = [
        Scenario(
            "arming does not flip; the fire does, before its single-tap and disarmed",
            config: ButtonConfig(kind: .toggle, maxTaps: 1, confirmMs: 2000),
            [.down(0), .up(10), .down(400), .up(410)],
            armedAt10 + [
                "touch-down@400", "touch-up-inside@410 durationMs=10", "tap@410 tapCount=1",
                "toggle@410 face=1 previousFace=0", "single-tap@410 tapCount=1", "disarmed@410 reason=fired",
            ]),
        Scenario(
            "a nervous double tap, a timeout and a slide-off do not flip",
            config: ButtonConfig(kind: .toggle, maxTaps: 1, confirmMs: 2000),
            [.down(0), .up(10), .down(100), .up(110), .down(2100), .up(2110), .down(2500), .up(2600, inside: false)],
            armedAt10 + [
                "touch-down@100", "touch-up-inside@110 durationMs=10", "disarmed@2010 reason=timeout", "touch-down@2100",
                "touch-up-inside@2110 durationMs=10", "armed@2110 windowMs=2000", "touch-down@2500",
                "touch-up-outside@2600 durationMs=100", "disarmed@2600 reason=cancel",
            ]),
    ]

    @Test(arguments: toggleScenarios)
    func toggle(_ scenario: Scenario) throws {
        #expect(try scenario.run() == scenario.expected)
    }

    @Test func stateShowsTheArmedWindow() throws {
        var machine = ButtonMachine(config: Self.confirm)
        _ = try machine.run([.down(1000), .up(1010)])
        #expect(machine.state == ButtonState(held: false, face: 0, tapCount: 0, armedUntil: 3010))
        #expect(machine.state.armed)
        #expect(machine.nextDeadline == 3010)
        _ = try machine.run([.down(1100)])
        #expect(machine.state == ButtonState(held: true, face: 0, tapCount: 0, armedUntil: 3010))
        #expect(machine.nextDeadline == 1600)  // the long press comes first
        _ = try machine.run([.up(1110)])
        #expect(machine.state.armed)  // a nervous double tap
        _ = try machine.run([.down(1400), .up(1410)])
        #expect(machine.state == ButtonState(held: false, face: 0, tapCount: 0))
        #expect(!machine.state.armed)
        #expect(machine.nextDeadline == nil)
    }

    @Test func resetClearsTheArmedWindowWithNoEvent() throws {
        var machine = ButtonMachine(config: Self.confirm)
        _ = try machine.run([.down(0), .up(10)])
        #expect(machine.reset(now: 100).isEmpty)
        #expect(!machine.state.armed)
        #expect(machine.nextDeadline == nil)
        // The next tap arms anew.
        #expect(try machine.run([.down(200), .up(210)]).texts.last == "armed@210 windowMs=2000")
    }

    @Test func resetClearsTheLockout() throws {
        var machine = ButtonMachine(config: GuardTests.lockout)
        _ = try machine.run([.down(0), .up(10)])
        _ = machine.reset(now: 100)
        #expect(try machine.run([.down(200), .up(210)]).texts.contains("tap@210 tapCount=1"))
    }

    /// A held press of an armed key at the same `t` as the window's end: the window closes
    /// first, and a max-hold cancel at that `t` comes last, finding nothing to disarm.
    @Test func theWindowClosesBeforeAPressTimerDueAtTheSameT() throws {
        var machine = ButtonMachine(config: ButtonConfig(longPressMs: 1500, maxTaps: 1, maxHoldMs: 1500, confirmMs: 2000))
        let events = try machine.run([.down(0), .up(10), .down(510), .advance(100_000)])
        #expect(
            events.texts.suffix(3) == [
                "disarmed@2010 reason=timeout", "long-press@2010 durationMs=1500", "touch-cancel@2010 reason=max-hold",
            ])
    }

    @Test func aRestartKeepsAnIdleArmedButtonArmedUntilItsWindowEnds() {
        let restored = ButtonMachine.restored(
            config: Self.confirm, face: 0, clock: 1000, held: false, tapCount: 0, armedUntil: 2500, now: 9000)
        #expect(restored.events.isEmpty)
        var machine = restored.machine
        #expect(machine.state.armedUntil == 2500)
        #expect(machine.advance(to: 100_000).texts == ["disarmed@2500 reason=timeout"])
    }

    @Test func aRestartThatInterruptsAPressOfAnArmedButtonDisarmsIt() {
        let open = ButtonMachine.restored(
            config: Self.confirm, face: 0, clock: 1000, held: true, tapCount: 0, armedUntil: 12_000, now: 9000)
        #expect(open.events.texts == ["touch-cancel@9000 reason=restart", "disarmed@9000 reason=cancel"])
        #expect(!open.machine.state.armed)
        let over = ButtonMachine.restored(
            config: Self.confirm, face: 0, clock: 1000, held: true, tapCount: 0, armedUntil: 2500, now: 9000)
        #expect(over.events.texts == ["disarmed@2500 reason=timeout", "touch-cancel@9000 reason=restart"])
        #expect(over.machine.nextDeadline == nil)
    }
}
