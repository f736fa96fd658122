import ButtonEngine
import Testing

/// SPEC §4 "Events, per input": touch-down, drags, touch-up inside/outside, cancel, pointers.
@Suite struct PressTests {
    static let scenarios: [Scenario] = [
        Scenario(
            "quick tap, then the series ends multiTapMs after the up",
            [.down(0), .up(100), .advance(10_000)],
            [
                "touch-down@0", "touch-up-inside@100 durationMs=100", "tap@100 tapCount=1",
                "single-tap@400 tapCount=1",
            ]),
        Scenario(
            "down and up at the same t is a tap of 0 ms",
            [.down(0), .up(0), .advance(10_000)],
            ["touch-down@0", "touch-up-inside@0 durationMs=0", "tap@0 tapCount=1", "single-tap@300 tapCount=1"]),
        Scenario(
            "drag exit then up is up outside, no tap",
            [.down(0), .move(50, inside: false), .up(100), .advance(10_000)],
            ["touch-down@0", "touch-drag-exit@50", "touch-up-outside@100 durationMs=100"]),
        Scenario(
            "exit then enter then up is a tap",
            [.down(0), .move(10, inside: false), .move(20, inside: true), .up(30), .advance(10_000)],
            [
                "touch-down@0", "touch-drag-exit@10", "touch-drag-enter@20", "touch-up-inside@30 durationMs=30",
                "tap@30 tapCount=1", "single-tap@330 tapCount=1",
            ]),
        Scenario(
            "a move that does not change inside emits nothing",
            [.down(0), .move(10, inside: true), .move(20, inside: false), .move(30, inside: false), .up(40)],
            ["touch-down@0", "touch-drag-exit@20", "touch-up-outside@40 durationMs=40"]),
        Scenario(
            "explicit up inside:false is taken as it is, with no drag event",
            [.down(0), .up(100, inside: false), .advance(10_000)],
            ["touch-down@0", "touch-up-outside@100 durationMs=100"]),
        Scenario(
            "explicit up inside:true overrides the last move, with no drag event",
            [.down(0), .move(10, inside: false), .up(100, inside: true), .advance(10_000)],
            [
                "touch-down@0", "touch-drag-exit@10", "touch-up-inside@100 durationMs=100", "tap@100 tapCount=1",
                "single-tap@400 tapCount=1",
            ]),
        Scenario(
            "inside resets to true at each down",
            [.down(0), .move(10, inside: false), .up(20), .down(100), .up(150), .advance(10_000)],
            [
                "touch-down@0", "touch-drag-exit@10", "touch-up-outside@20 durationMs=20", "touch-down@100",
                "touch-up-inside@150 durationMs=50", "tap@150 tapCount=1", "single-tap@450 tapCount=1",
            ]),
        Scenario(
            "cancel: touch-cancel and nothing else",
            [.down(0), .cancel(100), .advance(100_000)],
            ["touch-down@0", "touch-cancel@100"]),
        Scenario(
            "cancel after a drag exit",
            [.down(0), .move(10, inside: false), .cancel(100), .advance(100_000)],
            ["touch-down@0", "touch-drag-exit@10", "touch-cancel@100"]),
        Scenario(
            "the down's pointer is attached to every event of the press, timers too",
            [.down(0, pointer: "p1"), .up(100), .advance(10_000)],
            [
                "touch-down@0 pointer=p1", "touch-up-inside@100 durationMs=100 pointer=p1",
                "tap@100 tapCount=1 pointer=p1", "single-tap@400 tapCount=1 pointer=p1",
            ]),
        Scenario(
            "an input's own pointer overrides the press's for that input's events",
            [
                .down(0, pointer: "p1"), .move(10, inside: false, pointer: "p2"), .up(20, inside: true, pointer: "p3"),
                .advance(10_000),
            ],
            [
                "touch-down@0 pointer=p1", "touch-drag-exit@10 pointer=p2",
                "touch-up-inside@20 durationMs=20 pointer=p3", "tap@20 tapCount=1 pointer=p3",
                "single-tap@320 tapCount=1 pointer=p1",
            ]),
        Scenario(
            "a down without a pointer clears the previous press's pointer",
            [.down(0, pointer: "p1"), .up(10), .advance(1000), .down(2000), .up(2010)],
            [
                "touch-down@0 pointer=p1", "touch-up-inside@10 durationMs=10 pointer=p1",
                "tap@10 tapCount=1 pointer=p1", "single-tap@310 tapCount=1 pointer=p1", "touch-down@2000",
                "touch-up-inside@2010 durationMs=10", "tap@2010 tapCount=1",
            ]),
    ]

    @Test(arguments: scenarios)
    func press(_ scenario: Scenario) throws {
        #expect(try scenario.run() == scenario.expected)
    }

    @Test func stateFollowsThePress() throws {
        var machine = ButtonMachine(config: ButtonConfig())
        #expect(machine.state == ButtonState(held: false, face: 0, tapCount: 0))
        _ = try machine.apply(Input(.down, t: 0), now: 0)
        #expect(machine.state == ButtonState(held: true, face: 0, tapCount: 0))
        _ = try machine.apply(Input(.up, t: 10), now: 10)
        #expect(machine.state == ButtonState(held: false, face: 0, tapCount: 1))
        _ = machine.advance(to: 310)
        #expect(machine.state == ButtonState(held: false, face: 0, tapCount: 0))
    }
}
