import ButtonEngine
import Testing

/// The engine's compound operations: a press with a hold (`POST …/press` with `holdMs`) and a
/// button as a restart finds it.
@Suite struct OperationTests {
    struct PressCase: CustomTestStringConvertible, Sendable {
        var name: String
        var config: ButtonConfig
        var holdMs: Int64
        var expected: [String]
        var testDescription: String { name }
    }

    static let presses: [PressCase] = [
        PressCase(
            name: "a short hold is a tap", config: ButtonConfig(maxTaps: 1), holdMs: 40,
            expected: [
                "touch-down@1000", "touch-up-inside@1040 durationMs=40", "tap@1040 tapCount=1",
                "single-tap@1040 tapCount=1",
            ]),
        PressCase(
            name: "held exactly longPressMs is a long press, then the up ends it", config: ButtonConfig(longPressMs: 500),
            holdMs: 500,
            expected: [
                "touch-down@1000", "long-press@1500 durationMs=500", "touch-up-inside@1500 durationMs=500",
                "long-press-end@1500 durationMs=500",
            ]),
        PressCase(
            name: "repeats fire during the hold", config: ButtonConfig(longPressMs: 100, repeatMs: 50), holdMs: 220,
            expected: [
                "touch-down@1000", "long-press@1100 durationMs=100", "repeat@1150 repeat=1", "repeat@1200 repeat=2",
                "touch-up-inside@1220 durationMs=220", "long-press-end@1220 durationMs=220",
            ]),
        PressCase(
            name: "a hold past maxHoldMs ends in the max-hold cancel, with no up",
            config: ButtonConfig(longPressMs: 100, maxHoldMs: 300), holdMs: 1000,
            expected: ["touch-down@1000", "long-press@1100 durationMs=100", "touch-cancel@1300 reason=max-hold"]),
    ]

    @Test(arguments: presses)
    func pressWithHold(_ c: PressCase) throws {
        var machine = ButtonMachine(config: c.config)
        let events = try machine.press(Input(.down, t: 1000), holdMs: c.holdMs, now: 1000)
        #expect(events.texts == c.expected)
        #expect(!machine.state.held)
    }

    @Test func pressOnAHeldButtonIsRefusedAndChangesNothing() throws {
        var machine = ButtonMachine(config: ButtonConfig())
        _ = try machine.apply(Input(.down, t: 1000), now: 1000)
        let before = machine
        #expect(throws: InputError.alreadyDown) { try machine.press(Input(.down, t: 1100), holdMs: 0, now: 1100) }
        #expect(machine == before)
    }

    @Test func restoredHeldButtonIsReleasedWithARestartCancel() {
        let restored = ButtonMachine.restored(
            config: ButtonConfig(), face: 0, clock: 5000, held: true, tapCount: 0, now: 9000)
        #expect(restored.events.texts == ["touch-cancel@9000 reason=restart"])
        #expect(restored.clock == 9000)
        #expect(!restored.machine.state.held)
    }

    @Test func restoredTapSeriesEndsWithItsNTapBeforeTheCancel() {
        let restored = ButtonMachine.restored(
            config: ButtonConfig(), face: 0, clock: 12_000, held: true, tapCount: 2, now: 9000)
        // The stored clock is ahead of now: the events take the later of the two.
        #expect(restored.events.texts == ["double-tap@12000 tapCount=2", "touch-cancel@12000 reason=restart"])
    }

    @Test func restoredIdleButtonNeedsNoEvents() {
        let toggle = ButtonMachine.restored(
            config: ButtonConfig(kind: .toggle), face: 1, clock: 100, held: false, tapCount: 0, now: 9000)
        #expect(toggle.events.isEmpty)
        #expect(toggle.machine.state.face == 1)
        #expect(toggle.clock == 100)
        // A push button has no faces: a stored face is not carried over.
        let push = ButtonMachine.restored(config: ButtonConfig(), face: 1, clock: nil, held: false, tapCount: 0, now: 9000)
        #expect(push.machine.state.face == 0)
    }

    @Test func resetReleasesAHeldButtonAndEndsItsSeries() throws {
        var machine = ButtonMachine(config: ButtonConfig(maxTaps: 3))
        _ = try machine.press(Input(.down, t: 1000), holdMs: 10, now: 1000)  // one tap of a series
        _ = try machine.apply(Input(.down, t: 1100), now: 1100)  // held, the second tap's down
        let events = machine.reset(now: 2000)
        #expect(events.texts == ["single-tap@2000 tapCount=1", "touch-cancel@2000 reason=reset"])
        #expect(!machine.state.held)
        #expect(machine.nextDeadline == nil)  // no timer of the old press fires later
        // At rest at the server clock: the next input is taken from there on.
        #expect(try machine.apply(Input(.down, t: 2001), now: 2001).texts == ["touch-down@2001"])
    }

    @Test func resetBringsAClockPushedAheadBackAndKeepsTheFace() throws {
        var machine = ButtonMachine(config: ButtonConfig(kind: .toggle))
        _ = try machine.press(Input(.down, t: 9_000_000), holdMs: 0, now: 1000)
        #expect(machine.state.face == 1)
        #expect(throws: InputError.self) { try machine.apply(Input(.down, t: 2000), now: 2000) }
        // The press's tap series was still open (its single-tap due at the far-ahead time): it ends now.
        #expect(machine.reset(now: 2000).texts == ["single-tap@2000 tapCount=1"])
        #expect(machine.state.face == 1)
        #expect(try machine.apply(Input(.down, t: 2001), now: 2001).texts == ["touch-down@2001"])
    }
}
