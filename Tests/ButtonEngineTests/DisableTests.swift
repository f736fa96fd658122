import ButtonEngine
import Testing

/// SPEC §4 "Guards", `enabled: false`: disabling ends what is under way (a held press, an
/// open tap series, an armed window) at the server's clock; a disabled button refuses every
/// input; enabling emits nothing.
@Suite struct DisableTests {
    static let scenarios: [Scenario] = [
        Scenario(
            "at rest: nothing to end",
            [.down(0), .up(10), .advance(10_000), .enabled(false, now: 1000)],
            ["touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1", "single-tap@310 tapCount=1"]),
        Scenario(
            "a held press gets touch-cancel with reason disabled",
            [.down(0), .enabled(false, now: 100), .advance(100_000)],
            ["touch-down@0", "touch-cancel@100 reason=disabled"]),
        Scenario(
            "an open tap series ends with its n-tap",
            [.down(0), .up(10), .enabled(false, now: 100), .advance(100_000)],
            ["touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1", "single-tap@100 tapCount=1"]),
        Scenario(
            "a held press of a series: the n-tap first, then the cancel",
            config: ButtonConfig(maxTaps: 3),
            [.down(0), .up(10), .down(100), .up(110), .down(200), .enabled(false, now: 250), .advance(100_000)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1", "touch-down@100",
                "touch-up-inside@110 durationMs=10", "tap@110 tapCount=2", "touch-down@200", "double-tap@250 tapCount=2",
                "touch-cancel@250 reason=disabled",
            ]),
        Scenario(
            "an armed button is disarmed with reason cancel",
            config: ConfirmTests.confirm,
            [.down(0), .up(10), .enabled(false, now: 500), .advance(100_000)],
            ConfirmTests.armedAt10 + ["disarmed@500 reason=cancel"]),
        Scenario(
            "a held press of an armed button: the cancel, then disarmed",
            config: ConfirmTests.confirm,
            [.down(0), .up(10), .down(400), .enabled(false, now: 500), .advance(100_000)],
            ConfirmTests.armedAt10 + ["touch-down@400", "touch-cancel@500 reason=disabled", "disarmed@500 reason=cancel"]),
        Scenario(
            "timers due by then fire first, each at its deadline",
            config: ConfirmTests.confirm,
            [.down(0), .up(10), .down(1000), .enabled(false, now: 2500), .advance(100_000)],
            ConfirmTests.armedAt10 + [
                "touch-down@1000", "long-press@1500 durationMs=500", "disarmed@2010 reason=timeout",
                "touch-cancel@2500 reason=disabled",
            ]),
        Scenario(
            "disabling twice ends things once",
            [.down(0), .enabled(false, now: 100), .enabled(false, now: 200)],
            ["touch-down@0", "touch-cancel@100 reason=disabled"]),
        Scenario(
            "enabling emits nothing, and input is taken again",
            [.down(0), .enabled(false, now: 10), .enabled(true, now: 20), .enabled(true, now: 25), .down(30), .up(40)],
            ["touch-down@0", "touch-cancel@10 reason=disabled", "touch-down@30", "touch-up-inside@40 durationMs=10", "tap@40 tapCount=1"]),
    ]

    @Test(arguments: scenarios)
    func disable(_ scenario: Scenario) throws {
        #expect(try scenario.run() == scenario.expected)
    }

    @Test(arguments: InputKind.allCases)
    func everyInputIsRefusedWhileDisabled(kind: InputKind) throws {
        var machine = ButtonMachine(config: ButtonConfig())
        _ = try machine.run([.down(0), .enabled(false, now: 10)])
        #expect(!machine.config.enabled)
        let snapshot = machine
        #expect(throws: InputError.disabled) { _ = try machine.apply(Input(kind, t: 20, inside: true), now: 20) }
        #expect(throws: InputError.disabled) { _ = try machine.apply(Input(kind), now: 20) }
        #expect(machine == snapshot)
    }

    @Test func aPressIsRefusedWhileDisabled() {
        var machine = ButtonMachine(config: ButtonConfig(enabled: false))
        #expect(throws: InputError.disabled) { _ = try machine.press(Input(.down, t: 0), holdMs: 10, now: 0) }
        #expect(machine == ButtonMachine(config: ButtonConfig(enabled: false)))
    }

    /// Disabled comes before every other refusal: the button takes nothing, whatever it is.
    @Test func disabledIsJudgedBeforeOrder() throws {
        var machine = ButtonMachine(config: ButtonConfig())
        _ = try machine.run([.down(100), .up(110), .enabled(false, now: 120)])
        #expect(throws: InputError.disabled) { _ = try machine.apply(Input(.up, t: 5), now: 130) }
    }

    /// `now` is the server clock, mapped to the button's as the timers map it: a client an
    /// hour behind gets its cancel at its own time, not an hour ahead.
    @Test func disablingMapsTheServerClockToTheButtons() throws {
        var machine = ButtonMachine(config: ButtonConfig())
        _ = try machine.apply(Input(.down, t: 0), now: 3_600_000)
        #expect(machine.setEnabled(false, now: 3_600_100).texts == ["touch-cancel@100 reason=disabled"])
        #expect(machine.clock == 100)
        #expect(machine.lastInputT == 0)
    }

    /// A caller may put the whole new config in place first (as a PATCH does) and then
    /// disable: what was under way still ends.
    @Test func disablingAfterTheConfigWasAssignedStillEnds() throws {
        var machine = ButtonMachine(config: ButtonConfig())
        _ = try machine.apply(Input(.down, t: 0), now: 0)
        machine.config = ButtonConfig(enabled: false)
        #expect(machine.setEnabled(machine.config.enabled, now: 100).texts == ["touch-cancel@100 reason=disabled"])
        #expect(machine.nextDeadline == nil)
        #expect(!machine.state.held)
    }
}
