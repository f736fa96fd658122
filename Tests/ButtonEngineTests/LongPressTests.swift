import ButtonEngine
import Testing

/// SPEC §4: long press, its boundary, repeat, and max hold.
@Suite struct LongPressTests {
    static let scenarios: [Scenario] = [
        Scenario(
            "held longPressMs - 1 is a tap",
            [.down(0), .up(499), .advance(10_000)],
            [
                "touch-down@0", "touch-up-inside@499 durationMs=499", "tap@499 tapCount=1",
                "single-tap@799 tapCount=1",
            ]),
        Scenario(
            "held exactly longPressMs is a long press: the timer fires first",
            [.down(0), .up(500), .advance(100_000)],
            [
                "touch-down@0", "long-press@500 durationMs=500", "touch-up-inside@500 durationMs=500",
                "long-press-end@500 durationMs=500",
            ]),
        Scenario(
            "long press fires at its deadline between inputs",
            [.down(0), .advance(499), .advance(600), .up(800)],
            [
                "touch-down@0", "long-press@500 durationMs=500", "touch-up-inside@800 durationMs=800",
                "long-press-end@800 durationMs=800",
            ]),
        Scenario(
            "long press while outside, then up outside: long-press-end, no tap",
            [.down(0), .move(100, inside: false), .up(700), .advance(100_000)],
            [
                "touch-down@0", "touch-drag-exit@100", "long-press@500 durationMs=500",
                "touch-up-outside@700 durationMs=700", "long-press-end@700 durationMs=700",
            ]),
        Scenario(
            "a custom longPressMs",
            config: ButtonConfig(longPressMs: 1000),
            [.down(0), .up(999), .down(2000), .up(3000)],
            [
                "touch-down@0", "touch-up-inside@999 durationMs=999", "tap@999 tapCount=1",
                "single-tap@1299 tapCount=1", "touch-down@2000", "long-press@3000 durationMs=1000",
                "touch-up-inside@3000 durationMs=1000", "long-press-end@3000 durationMs=1000",
            ]),
        Scenario(
            "cancel after a long press: no long-press-end",
            [.down(0), .cancel(600), .advance(100_000)],
            ["touch-down@0", "long-press@500 durationMs=500", "touch-cancel@600"]),
        Scenario(
            "repeat off by default",
            [.down(0), .up(5000)],
            [
                "touch-down@0", "long-press@500 durationMs=500", "touch-up-inside@5000 durationMs=5000",
                "long-press-end@5000 durationMs=5000",
            ]),
        Scenario(
            "repeat at repeatMs, 2 x repeatMs ... after the long press",
            config: ButtonConfig(repeatMs: 100),
            [.down(0), .up(750)],
            [
                "touch-down@0", "long-press@500 durationMs=500", "repeat@600 repeat=1", "repeat@700 repeat=2",
                "touch-up-inside@750 durationMs=750", "long-press-end@750 durationMs=750",
            ]),
        Scenario(
            "repeat stops at cancel",
            config: ButtonConfig(repeatMs: 100),
            [.down(0), .cancel(650), .advance(100_000)],
            ["touch-down@0", "long-press@500 durationMs=500", "repeat@600 repeat=1", "touch-cancel@650"]),
        Scenario(
            "max hold: touch-cancel with reason, after the long press",
            config: ButtonConfig(maxHoldMs: 1000),
            [.down(0), .advance(100_000)],
            ["touch-down@0", "long-press@500 durationMs=500", "touch-cancel@1000 reason=max-hold"]),
        Scenario(
            "max hold and repeat due at the same t: repeat first, max-hold last",
            config: ButtonConfig(repeatMs: 250, maxHoldMs: 1000),
            [.down(0), .advance(100_000)],
            [
                "touch-down@0", "long-press@500 durationMs=500", "repeat@750 repeat=1", "repeat@1000 repeat=2",
                "touch-cancel@1000 reason=max-hold",
            ]),
        Scenario(
            "max hold and long press due at the same t: long press first",
            config: ButtonConfig(longPressMs: 1000, maxHoldMs: 1000),
            [.down(0), .advance(100_000)],
            ["touch-down@0", "long-press@1000 durationMs=1000", "touch-cancel@1000 reason=max-hold"]),
        Scenario(
            "max hold before the long press",
            config: ButtonConfig(longPressMs: 2000, maxHoldMs: 1000),
            [.down(0, pointer: "m"), .advance(100_000)],
            ["touch-down@0 pointer=m", "touch-cancel@1000 reason=max-hold pointer=m"]),
        Scenario(
            "after max hold the button can be pressed again",
            config: ButtonConfig(maxHoldMs: 1000),
            [.down(0), .advance(1000), .down(1000), .up(1100)],
            [
                "touch-down@0", "long-press@500 durationMs=500", "touch-cancel@1000 reason=max-hold",
                "touch-down@1000", "touch-up-inside@1100 durationMs=100", "tap@1100 tapCount=1",
            ]),
        Scenario(
            "a second press gets its own long press",
            [.down(0), .up(600), .down(1000), .up(1600)],
            [
                "touch-down@0", "long-press@500 durationMs=500", "touch-up-inside@600 durationMs=600",
                "long-press-end@600 durationMs=600", "touch-down@1000", "long-press@1500 durationMs=500",
                "touch-up-inside@1600 durationMs=600", "long-press-end@1600 durationMs=600",
            ]),
    ]

    @Test(arguments: scenarios)
    func longPress(_ scenario: Scenario) throws {
        #expect(try scenario.run() == scenario.expected)
    }

    /// (up t, repeats expected): a repeat due exactly at the up fires before it.
    @Test(arguments: [(550, 0), (599, 0), (600, 1), (699, 1), (700, 2), (1000, 5), (1049, 5)] as [(Int64, Int)])
    func repeatCount(upT: Int64, repeatCount: Int) throws {
        var machine = ButtonMachine(config: ButtonConfig(repeatMs: 100))
        let events = try machine.run([.down(0), .up(upT)])
        let repeats = events.filter { $0.type == .repeat }
        let expectedTimes: [Int64] = (0..<Int64(repeatCount)).map { 600 + $0 * 100 }
        #expect(repeats.compactMap(\.data.repeat) == Array(1...max(repeatCount, 1)).prefix(repeatCount).map { $0 })
        #expect(repeats.map(\.t) == expectedTimes)
        #expect(events.last?.type == .longPressEnd)
    }

    @Test func aRepeatIntervalChangeTakesEffectForTheNextRepeat() throws {
        var machine = ButtonMachine(config: ButtonConfig(repeatMs: 100))
        var events = try machine.run([.down(0), .advance(600)])
        machine.config.repeatMs = 300
        events += try machine.run([.up(1000)])
        #expect(events.filter { $0.type == .repeat }.map(\.t) == [600, 700, 1000])
    }

    @Test func maxHoldEndsTheHold() throws {
        var machine = ButtonMachine(config: ButtonConfig(maxHoldMs: 1000))
        _ = try machine.run([.down(0), .advance(1000)])
        #expect(machine.state.held == false)
        #expect(machine.nextDeadline == nil)
    }
}
