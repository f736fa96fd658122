import ButtonEngine
import Testing

/// SPEC §4 "Toggle faces": each tap flips, a long press does not, `setFace` emits `toggle`
/// only on a change.
@Suite struct ToggleTests {
    static let toggle = ButtonConfig(kind: .toggle)

    static let scenarios: [Scenario] = [
        Scenario(
            "a tap flips 0 -> 1: touch-up-inside, tap, toggle",
            config: toggle,
            [.down(0), .up(10), .advance(10_000)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1",
                "toggle@10 face=1 previousFace=0", "single-tap@310 tapCount=1",
            ]),
        Scenario(
            "each tap flips; the n-tap comes after the toggle",
            config: toggle,
            [.down(0), .up(10), .down(20), .up(30)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1",
                "toggle@10 face=1 previousFace=0", "touch-down@20", "touch-up-inside@30 durationMs=10",
                "tap@30 tapCount=2", "toggle@30 face=0 previousFace=1", "double-tap@30 tapCount=2",
            ]),
        Scenario(
            "a long press does not flip",
            config: toggle,
            [.down(0), .up(600), .advance(100_000)],
            [
                "touch-down@0", "long-press@500 durationMs=500", "touch-up-inside@600 durationMs=600",
                "long-press-end@600 durationMs=600",
            ]),
        Scenario(
            "up outside and cancel do not flip",
            config: toggle,
            [.down(0), .up(10, inside: false), .down(20), .cancel(30), .advance(100_000)],
            ["touch-down@0", "touch-up-outside@10 durationMs=10", "touch-down@20", "touch-cancel@30"]),
        Scenario(
            "a push button never emits toggle",
            [.down(0), .up(10), .down(20), .up(30)],
            [
                "touch-down@0", "touch-up-inside@10 durationMs=10", "tap@10 tapCount=1", "touch-down@20",
                "touch-up-inside@30 durationMs=10", "tap@30 tapCount=2", "double-tap@30 tapCount=2",
            ]),
    ]

    @Test(arguments: scenarios)
    func toggle(_ scenario: Scenario) throws {
        #expect(try scenario.run() == scenario.expected)
    }

    @Test func faceFollowsTaps() throws {
        var machine = ButtonMachine(config: Self.toggle)
        #expect(machine.state.face == 0)
        _ = try machine.run([.down(0), .up(10)])
        #expect(machine.state.face == 1)
        _ = try machine.run([.down(1000), .up(2000)])
        #expect(machine.state.face == 1)
        _ = try machine.run([.down(3000), .up(3010)])
        #expect(machine.state.face == 0)
    }

    @Test func aRestoredFaceIsFlippedFrom() throws {
        var machine = ButtonMachine(config: Self.toggle, face: 1)
        let events = try machine.run([.down(0), .up(10)])
        #expect(events.texts.contains("toggle@10 face=0 previousFace=1"))
    }

    @Test func setFaceEmitsOnlyOnChange() {
        var machine = ButtonMachine(config: Self.toggle)
        #expect(machine.setFace(0, now: 1000).isEmpty)
        #expect(machine.setFace(1, now: 1000).texts == ["toggle@1000 face=1 previousFace=0"])
        #expect(machine.state.face == 1)
        #expect(machine.setFace(1, now: 2000).isEmpty)
        #expect(machine.setFace(0, now: 3000).texts == ["toggle@3000 face=0 previousFace=1"])
        #expect(machine.clock == 3000)
    }

    @Test func setFaceFiresDueTimersFirst() throws {
        var machine = ButtonMachine(config: Self.toggle)
        _ = try machine.apply(Input(.down, t: 0), now: 0)
        #expect(machine.setFace(1, now: 600).texts == ["long-press@500 durationMs=500", "toggle@600 face=1 previousFace=0"])
        #expect(try machine.run([.up(700)]).texts == ["touch-up-inside@700 durationMs=700", "long-press-end@700 durationMs=700"])
        #expect(machine.state.face == 1)
    }

    @Test func setFaceUsesTheButtonClock() throws {
        // The client's clock is an hour behind the server's.
        var machine = ButtonMachine(config: Self.toggle)
        _ = try machine.apply(Input(.down, t: 0), now: 3_600_000)
        _ = try machine.apply(Input(.up, t: 10), now: 3_600_010)
        #expect(machine.setFace(0, now: 3_600_100).texts == ["toggle@100 face=0 previousFace=1"])
        // Never before the button's clock.
        #expect(machine.setFace(1, now: 0).texts == ["toggle@100 face=1 previousFace=0"])
    }

    @Test func setFaceThenTapFlipsFromTheNewFace() throws {
        var machine = ButtonMachine(config: Self.toggle)
        _ = machine.setFace(1, now: 0)
        let events = try machine.run([.down(10), .up(20)])
        #expect(events.texts.contains("toggle@20 face=0 previousFace=1"))
    }
}
