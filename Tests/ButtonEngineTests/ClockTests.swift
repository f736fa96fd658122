import ButtonEngine
import Testing

/// SPEC §3/§4 "Logical clock": effective `t`, timers in real time through the clock offset,
/// and inputs that arrive after a timer already fired.
@Suite struct ClockTests {
    @Test func aTBeforeAnAlreadyFiredTimerIsAppliedAtTheTimersTime() throws {
        var machine = ButtonMachine(config: ButtonConfig())
        _ = try machine.apply(Input(.down, t: 0), now: 0)
        #expect(machine.fireDue(now: 500).texts == ["long-press@500 durationMs=500"])
        let events = try machine.apply(Input(.up, t: 300), now: 520)
        #expect(events.texts == ["touch-up-inside@500 durationMs=500", "long-press-end@500 durationMs=500"])
        #expect(machine.clock == 500)
        #expect(machine.lastInputT == 300)
        #expect(machine.clockOffset == -20)
        // Not before the last input's own t, so accepted (and applied at the clock).
        #expect(try machine.apply(Input(.down, t: 400), now: 530).texts == ["touch-down@500"])
    }

    @Test func aMissingTMeansNowOrTheClockIfLater() throws {
        var machine = ButtonMachine(config: ButtonConfig())
        #expect(try machine.apply(Input(.down), now: 1000).texts == ["touch-down@1000"])
        #expect(machine.clockOffset == 0)
        #expect(try machine.apply(Input(.up), now: 900).texts == ["touch-up-inside@1000 durationMs=0", "tap@1000 tapCount=1"])
        #expect(machine.lastInputT == 1000)
        #expect(machine.clockOffset == 100)
    }

    @Test func aMissingTFiresTheTimersDueByNow() throws {
        var machine = ButtonMachine(config: ButtonConfig())
        _ = try machine.apply(Input(.down), now: 1000)
        let events = try machine.apply(Input(.up), now: 1700)
        #expect(
            events.texts == [
                "long-press@1500 durationMs=500", "touch-up-inside@1700 durationMs=700", "long-press-end@1700 durationMs=700",
            ])
    }

    /// A client clock skewed by an hour either way still gets its long press on time.
    @Test(arguments: [-3_600_000, -1, 0, 1, 3_600_000] as [Int64])
    func fireDueMapsTheServerClock(skew: Int64) throws {
        let serverNow: Int64 = 1_795_954_800_000
        let clientT = serverNow + skew
        var machine = ButtonMachine(config: ButtonConfig())
        _ = try machine.apply(Input(.down, t: clientT), now: serverNow)
        #expect(machine.clockOffset == skew)
        #expect(machine.nextDeadline == clientT + 500)
        #expect(machine.fireDue(now: serverNow + 499).isEmpty)
        #expect(machine.fireDue(now: serverNow + 500).texts == ["long-press@\(clientT + 500) durationMs=500"])
        #expect(machine.clock == clientT + 500)
        #expect(machine.nextDeadline == clientT + 60_000)
    }

    @Test func fireDueFiresEachTimerAtItsOwnDeadline() throws {
        var machine = ButtonMachine(config: ButtonConfig(repeatMs: 100, maxHoldMs: 1000))
        _ = try machine.apply(Input(.down, t: 10_000), now: 0)
        let events = machine.fireDue(now: 5000)
        #expect(events.map(\.t) == [10_500, 10_600, 10_700, 10_800, 10_900, 11_000, 11_000])
        #expect(machine.clock == 11_000)
    }

    @Test func nextDeadlineFollowsThePendingTimers() throws {
        var machine = ButtonMachine(config: ButtonConfig(repeatMs: 100, maxHoldMs: 2000))
        #expect(machine.nextDeadline == nil)
        _ = try machine.apply(Input(.down, t: 0), now: 0)
        #expect(machine.nextDeadline == 500)
        _ = machine.advance(to: 500)
        #expect(machine.nextDeadline == 600)
        _ = try machine.apply(Input(.up, t: 650), now: 650)
        #expect(machine.nextDeadline == nil)
        _ = try machine.run([.down(700), .up(710)])
        #expect(machine.nextDeadline == 1010)
        _ = machine.advance(to: 1010)
        #expect(machine.nextDeadline == nil)
    }

    @Test func advanceMovesTheClockOnlyToFiredDeadlines() throws {
        var machine = ButtonMachine(config: ButtonConfig())
        #expect(machine.advance(to: 10_000).isEmpty)
        #expect(machine.clock == nil)
        _ = try machine.apply(Input(.down, t: 0), now: 0)
        _ = machine.advance(to: 10_000)
        #expect(machine.clock == 500)
    }

    @Test func aRestoredClockIsNotGoneBackOn() throws {
        var machine = ButtonMachine(config: ButtonConfig(), clock: 5000)
        #expect(machine.state.held == false)
        #expect(try machine.apply(Input(.down, t: 4000), now: 4000).texts == ["touch-down@5000"])
    }

    @Test func aRestoredLastInputTRefusesEarlierInput() {
        var machine = ButtonMachine(config: ButtonConfig(), clock: 5000, lastInputT: 5000)
        #expect(throws: InputError.outOfOrder(lastInputT: 5000)) { _ = try machine.apply(Input(.down, t: 4999), now: 0) }
    }

    @Test func aConfigChangeTakesEffectForTimersScheduledAfterwards() throws {
        var machine = ButtonMachine(config: ButtonConfig())
        _ = try machine.apply(Input(.down, t: 0), now: 0)
        machine.config.longPressMs = 2000
        #expect(machine.nextDeadline == 500)
        _ = try machine.run([.up(600), .down(1000)])
        #expect(machine.nextDeadline == 3000)
    }

    @Test(arguments: [Int64.max, Int64.max - 10, Int64.min])
    func extremeTimesDoNotTrap(t: Int64) throws {
        var machine = ButtonMachine(config: ButtonConfig(repeatMs: 50))
        _ = try machine.apply(Input(.down, t: t), now: 0)
        _ = machine.fireDue(now: .max)
        _ = machine.advance(to: .max)
        _ = machine.fireDue(now: .min)
        #expect(machine.nextDeadline == nil || machine.state.held)
        if machine.state.held { _ = try machine.apply(Input(.up, t: .max), now: .min) }
        #expect(machine.state.held == false)
    }
}
