import ButtonEngine
import Testing

/// SPEC §4 "Tap series" and "Order": counting, the multiTapMs boundary, maxTaps, and how a
/// press that ends without a tap ends the series (its n-tap first).
@Suite struct TapSeriesTests {
    static let scenarios: [Scenario] = [
        Scenario(
            "a down multiTapMs - 1 after the up continues the series",
            [.down(0), .up(50), .down(349), .up(400)],
            [
                "touch-down@0", "touch-up-inside@50 durationMs=50", "tap@50 tapCount=1", "touch-down@349",
                "touch-up-inside@400 durationMs=51", "tap@400 tapCount=2", "double-tap@400 tapCount=2",
            ]),
        Scenario(
            "a down exactly multiTapMs after the up finds the series ended",
            [.down(0), .up(50), .down(350), .up(400), .advance(10_000)],
            [
                "touch-down@0", "touch-up-inside@50 durationMs=50", "tap@50 tapCount=1", "single-tap@350 tapCount=1",
                "touch-down@350", "touch-up-inside@400 durationMs=50", "tap@400 tapCount=1",
                "single-tap@700 tapCount=1",
            ]),
        Scenario(
            "the gap is measured from the up, not the down",
            [.down(0), .up(200), .down(450), .up(460)],
            [
                "touch-down@0", "touch-up-inside@200 durationMs=200", "tap@200 tapCount=1", "touch-down@450",
                "touch-up-inside@460 durationMs=10", "tap@460 tapCount=2", "double-tap@460 tapCount=2",
            ]),
        Scenario(
            "holding longer than multiTapMs within the series still counts",
            [.down(0), .up(50), .down(100), .up(450)],
            [
                "touch-down@0", "touch-up-inside@50 durationMs=50", "tap@50 tapCount=1", "touch-down@100",
                "touch-up-inside@450 durationMs=350", "tap@450 tapCount=2", "double-tap@450 tapCount=2",
            ]),
        Scenario(
            "long press inside a series: n-tap first, then long-press",
            [.down(0), .up(50), .down(100), .up(700), .advance(100_000)],
            [
                "touch-down@0", "touch-up-inside@50 durationMs=50", "tap@50 tapCount=1", "touch-down@100",
                "single-tap@600 tapCount=1", "long-press@600 durationMs=500", "touch-up-inside@700 durationMs=600",
                "long-press-end@700 durationMs=600",
            ]),
        Scenario(
            "cancel inside a series: n-tap first, then touch-cancel",
            config: ButtonConfig(maxTaps: 3),
            [.down(0), .up(50), .down(100), .up(150), .down(200), .cancel(250), .advance(100_000)],
            [
                "touch-down@0", "touch-up-inside@50 durationMs=50", "tap@50 tapCount=1", "touch-down@100",
                "touch-up-inside@150 durationMs=50", "tap@150 tapCount=2", "touch-down@200",
                "double-tap@250 tapCount=2", "touch-cancel@250",
            ]),
        Scenario(
            "up outside inside a series: n-tap first, then touch-up-outside",
            [.down(0), .up(50), .down(100), .move(120, inside: false), .up(150), .advance(100_000)],
            [
                "touch-down@0", "touch-up-inside@50 durationMs=50", "tap@50 tapCount=1", "touch-down@100",
                "touch-drag-exit@120", "single-tap@150 tapCount=1", "touch-up-outside@150 durationMs=50",
            ]),
        Scenario(
            "explicit up outside inside a series",
            [.down(0), .up(50), .down(100), .up(150, inside: false), .advance(100_000)],
            [
                "touch-down@0", "touch-up-inside@50 durationMs=50", "tap@50 tapCount=1", "touch-down@100",
                "single-tap@150 tapCount=1", "touch-up-outside@150 durationMs=50",
            ]),
        Scenario(
            "max hold inside a series: n-tap first, then the max-hold cancel",
            config: ButtonConfig(longPressMs: 5000, maxHoldMs: 1000),
            [.down(0), .up(50), .down(100), .advance(100_000)],
            [
                "touch-down@0", "touch-up-inside@50 durationMs=50", "tap@50 tapCount=1", "touch-down@100",
                "single-tap@1100 tapCount=1", "touch-cancel@1100 reason=max-hold",
            ]),
        Scenario(
            "a press without a tap and no earlier taps emits no n-tap",
            [.down(0), .up(50, inside: false), .down(100), .cancel(150), .down(200), .up(800), .advance(100_000)],
            [
                "touch-down@0", "touch-up-outside@50 durationMs=50", "touch-down@100", "touch-cancel@150",
                "touch-down@200", "long-press@700 durationMs=500", "touch-up-inside@800 durationMs=600",
                "long-press-end@800 durationMs=600",
            ]),
        Scenario(
            "a tap soon after a long press starts a new series",
            [.down(0), .up(600), .down(700), .up(750), .advance(100_000)],
            [
                "touch-down@0", "long-press@500 durationMs=500", "touch-up-inside@600 durationMs=600",
                "long-press-end@600 durationMs=600", "touch-down@700", "touch-up-inside@750 durationMs=50",
                "tap@750 tapCount=1", "single-tap@1050 tapCount=1",
            ]),
        Scenario(
            "a tap soon after a series that reached maxTaps starts a new series",
            [.down(0), .up(10), .down(20), .up(30), .down(40), .up(50), .advance(100_000)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1", "touch-down@20",
                "touch-up-inside@30 durationMs=10", "tap@30 tapCount=2", "double-tap@30 tapCount=2",
                "touch-down@40", "touch-up-inside@50 durationMs=10", "tap@50 tapCount=1",
                "single-tap@350 tapCount=1",
            ]),
        Scenario(
            "maxTaps 1: single-tap right after its tap",
            config: ButtonConfig(maxTaps: 1),
            [.down(0), .up(10), .down(20), .up(30), .advance(100_000)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1", "single-tap@10 tapCount=1",
                "touch-down@20", "touch-up-inside@30 durationMs=10", "tap@30 tapCount=1",
                "single-tap@30 tapCount=1",
            ]),
        Scenario(
            "maxTaps 3 with two taps ends with double-tap after multiTapMs",
            config: ButtonConfig(maxTaps: 3),
            [.down(0), .up(10), .down(20), .up(30), .advance(329), .advance(330)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1", "touch-down@20",
                "touch-up-inside@30 durationMs=10", "tap@30 tapCount=2", "double-tap@330 tapCount=2",
            ]),
        Scenario(
            "a custom multiTapMs",
            config: ButtonConfig(multiTapMs: 100, maxTaps: 3),
            [.down(0), .up(10), .down(109), .up(120), .down(220), .up(230), .advance(100_000)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1", "touch-down@109",
                "touch-up-inside@120 durationMs=11", "tap@120 tapCount=2", "double-tap@220 tapCount=2",
                "touch-down@220", "touch-up-inside@230 durationMs=10", "tap@230 tapCount=1",
                "single-tap@330 tapCount=1",
            ]),
    ]

    @Test(arguments: scenarios)
    func series(_ scenario: Scenario) throws {
        #expect(try scenario.run() == scenario.expected)
    }

    static let nTapNames = ["single-tap", "double-tap", "triple-tap", "quadruple-tap", "quintuple-tap"]

    /// maxTaps n: the n-th tap ends the series at once with the n-tap event.
    @Test(arguments: [1, 2, 3, 4, 5])
    func reachingMaxTapsEndsTheSeriesAtOnce(maxTaps: Int) throws {
        var machine = ButtonMachine(config: ButtonConfig(maxTaps: maxTaps))
        var steps: [Step] = []
        for k in 0..<Int64(maxTaps) { steps += [.down(k * 100), .up(k * 100 + 20)] }
        let events = try machine.run(steps).texts
        let lastUp = Int64(maxTaps - 1) * 100 + 20
        #expect(events.suffix(2) == ["tap@\(lastUp) tapCount=\(maxTaps)", "\(Self.nTapNames[maxTaps - 1])@\(lastUp) tapCount=\(maxTaps)"])
        #expect(events.filter { $0.contains("-tap@") }.count == 1)
        #expect(machine.nextDeadline == nil)
        #expect(machine.state.tapCount == 0)
    }

    /// maxTaps 5 and n < 5 taps: the series ends multiTapMs after the last up with the n-tap.
    @Test(arguments: [1, 2, 3, 4])
    func seriesEndsByTimer(taps: Int) throws {
        var machine = ButtonMachine(config: ButtonConfig(maxTaps: 5))
        var steps: [Step] = []
        for k in 0..<Int64(taps) { steps += [.down(k * 100), .up(k * 100 + 20)] }
        var events = try machine.run(steps).texts
        #expect(machine.state.tapCount == taps)
        let lastUp = Int64(taps - 1) * 100 + 20
        #expect(machine.nextDeadline == lastUp + 300)
        events += machine.advance(to: 1_000_000).texts
        #expect(events.last == "\(Self.nTapNames[taps - 1])@\(lastUp + 300) tapCount=\(taps)")
        #expect(events.filter { $0.contains("-tap@") }.count == 1)
    }

    /// A series of `count` taps ends with this event, spelled as on the wire.
    @Test(arguments: [
        (0, "single-tap"), (1, "single-tap"), (2, "double-tap"), (3, "triple-tap"), (4, "quadruple-tap"),
        (5, "quintuple-tap"), (6, "quintuple-tap"), (7, "quintuple-tap"),
    ])
    func nTapEventType(count: Int, wire: String) {
        #expect(EventType.nTap(count).rawValue == wire)
        #expect(EventType.nTap(count).isNTap)
    }

    @Test func onlyTheFiveNTapTypesAreNTaps() {
        #expect(EventType.allCases.filter(\.isNTap) == [.singleTap, .doubleTap, .tripleTap, .quadrupleTap, .quintupleTap])
    }

    @Test(arguments: [0, -3, 6, 100])
    func maxTapsOutOfRangeIsClamped(maxTaps: Int) throws {
        var machine = ButtonMachine(config: ButtonConfig(maxTaps: maxTaps))
        var steps: [Step] = []
        for k in 0..<Int64(6) { steps += [.down(k * 100), .up(k * 100 + 20)] }
        let events = try machine.run(steps + [.advance(1_000_000)])
        let nTaps = events.filter(\.type.isNTap).compactMap(\.data.tapCount)
        #expect(nTaps == (maxTaps < 1 ? [1, 1, 1, 1, 1, 1] : [5, 1]))
    }
}
