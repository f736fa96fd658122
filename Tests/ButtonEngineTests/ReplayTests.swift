import ButtonEngine
import Testing

/// SPEC §4 "Logical clock": a batch replayed with its recorded timestamps yields exactly the
/// events it yielded, and firing the timers in real time yields the same events as a batch.
@Suite struct ReplayTests {
    /// A recorded batch: inputs with their `t`, applied in order; refused ones are recorded too.
    ///
    /// As in real time, `t` never goes back, except for inputs before the last accepted one,
    /// which are refused (`out_of_order`) however they are applied. (An input between the
    /// two may be applied later live than in a batch, when a timer fired in between: that is
    /// the rule for late input, not a replay difference.)
    static func record(seed: UInt64, guarded: Bool = false) -> (ButtonConfig, [Input]) {
        var random = RandomInputs(seed: seed)
        let config = guarded ? random.guardedConfig() : random.config()
        var machine = ButtonMachine(config: config)
        var inputs: [Input] = []
        var latest: Int64 = 10_000
        for _ in 0..<500 {
            var input = random.input(after: latest, held: machine.state.held)
            var t = input.t ?? latest  // a recording has every t
            if t < latest { t = Swift.min(t, (machine.lastInputT ?? latest) - 1) }
            input.t = t
            latest = Swift.max(latest, t)
            inputs.append(input)
            _ = try? machine.apply(input, now: 0)
        }
        return (config, inputs)
    }

    /// Applies a batch at once, then lets every remaining timer fire.
    static func batch(_ config: ButtonConfig, _ inputs: [Input], now: Int64) -> (events: [GestureEvent], refused: [Int]) {
        var machine = ButtonMachine(config: config)
        var events: [GestureEvent] = []
        var refused: [Int] = []
        for (index, input) in inputs.enumerated() {
            do { events += try machine.apply(input, now: now) } catch { refused.append(index) }
        }
        events += machine.advance(to: .max)
        return (events, refused)
    }

    /// Sends each input when the client's clock (server clock + skew) reaches its `t`, and
    /// between inputs fires every timer in real time at its deadline.
    static func live(_ config: ButtonConfig, _ inputs: [Input], skew: Int64) -> (events: [GestureEvent], refused: [Int]) {
        var machine = ButtonMachine(config: config)
        var events: [GestureEvent] = []
        var refused: [Int] = []
        for (index, input) in inputs.enumerated() {
            let inputT = input.t ?? 0
            while let deadline = machine.nextDeadline, deadline < inputT {
                events += machine.fireDue(now: deadline - machine.clockOffset)
            }
            do { events += try machine.apply(input, now: inputT - skew) } catch { refused.append(index) }
        }
        while let deadline = machine.nextDeadline {
            events += machine.fireDue(now: deadline - machine.clockOffset)
        }
        return (events, refused)
    }

    @Test(arguments: Array(1...20) as [UInt64])
    func replayingABatchGivesTheSameEvents(seed: UInt64) {
        let (config, inputs) = Self.record(seed: seed)
        let first = Self.batch(config, inputs, now: 0)
        let second = Self.batch(config, inputs, now: 123_456_789)
        #expect(firstDifference(first.events, second.events) == nil)
        #expect(first.refused == second.refused)
        #expect(first.events.count > 100)
    }

    @Test(arguments: Array(1...20) as [UInt64], [-3_600_000, 0, 250, 3_600_000] as [Int64])
    func firingInRealTimeGivesTheSameEventsAsABatch(seed: UInt64, skew: Int64) {
        let (config, inputs) = Self.record(seed: seed)
        let batch = Self.batch(config, inputs, now: 0)
        let live = Self.live(config, inputs, skew: skew)
        #expect(firstDifference(live.events, batch.events) == nil)
        #expect(live.refused == batch.refused)
    }

    /// The guards' decisions and the armed window's timer replay exactly too.
    @Test(arguments: Array(41...60) as [UInt64])
    func replayingGuardsGivesTheSameEvents(seed: UInt64) {
        let (config, inputs) = Self.record(seed: seed, guarded: true)
        let first = Self.batch(config, inputs, now: 0)
        let second = Self.batch(config, inputs, now: 123_456_789)
        #expect(firstDifference(first.events, second.events) == nil)
        #expect(first.refused == second.refused)
        #expect(first.events.contains { $0.type == .refused || $0.type == .armed }, "config \(config)")
    }

    @Test(arguments: Array(41...60) as [UInt64], [-3_600_000, 0, 3_600_000] as [Int64])
    func firingGuardTimersInRealTimeGivesTheSameEventsAsABatch(seed: UInt64, skew: Int64) {
        let (config, inputs) = Self.record(seed: seed, guarded: true)
        let batch = Self.batch(config, inputs, now: 0)
        let live = Self.live(config, inputs, skew: skew)
        #expect(firstDifference(live.events, batch.events) == nil)
        #expect(live.refused == batch.refused)
    }

    @Test func aFixedRecordingReplays() throws {
        let config = ButtonConfig(kind: .toggle, maxTaps: 3, repeatMs: 200, maxHoldMs: 2000)
        let inputs = [
            Input(.down, t: 0, pointer: "a"), Input(.up, t: 80), Input(.down, t: 200), Input(.move, t: 300, inside: false),
            Input(.move, t: 400, inside: true), Input(.up, t: 450), Input(.down, t: 1000), Input(.up, t: 1900),
            Input(.down, t: 2000), Input(.move, t: 2100, inside: false),
        ]
        let expected = [
            "touch-down@0 pointer=a", "touch-up-inside@80 durationMs=80 pointer=a", "tap@80 tapCount=1 pointer=a",
            "toggle@80 face=1 previousFace=0 pointer=a", "touch-down@200", "touch-drag-exit@300", "touch-drag-enter@400",
            "touch-up-inside@450 durationMs=250", "tap@450 tapCount=2", "toggle@450 face=0 previousFace=1",
            "double-tap@750 tapCount=2", "touch-down@1000", "long-press@1500 durationMs=500", "repeat@1700 repeat=1",
            "repeat@1900 repeat=2", "touch-up-inside@1900 durationMs=900", "long-press-end@1900 durationMs=900", "touch-down@2000",
            "touch-drag-exit@2100", "long-press@2500 durationMs=500", "repeat@2700 repeat=1", "repeat@2900 repeat=2",
            "repeat@3100 repeat=3", "repeat@3300 repeat=4", "repeat@3500 repeat=5", "repeat@3700 repeat=6",
            "repeat@3900 repeat=7", "touch-cancel@4000 reason=max-hold",
        ]
        #expect(Self.batch(config, inputs, now: 0).events.texts == expected)
        #expect(Self.live(config, inputs, skew: -3_600_000).events.texts == expected)
    }
}
