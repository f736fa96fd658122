import ButtonEngine
import Testing

/// SPEC §3: `out_of_order`, `already_down`, `not_down`, `button_disabled`, and that a refused input changes
/// nothing (a batch is all or nothing).
@Suite struct InputErrorTests {
    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        var config = ButtonConfig()
        let before: [Step]
        let input: Input
        let error: InputError
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "t before the last input", before: [.down(100)], input: Input(.up, t: 99), error: .outOfOrder(lastInputT: 100)),
        Refusal(name: "t before the last input, not held", before: [.down(100), .up(200)], input: Input(.down, t: 150), error: .outOfOrder(lastInputT: 200)),
        Refusal(name: "down while held", before: [.down(0)], input: Input(.down, t: 10), error: .alreadyDown),
        Refusal(name: "down while held, long press due", before: [.down(0)], input: Input(.down, t: 600), error: .alreadyDown),
        Refusal(name: "up on a fresh button", before: [], input: Input(.up, t: 10), error: .notDown),
        Refusal(name: "move on a fresh button", before: [], input: Input(.move, t: 10, inside: false), error: .notDown),
        Refusal(name: "cancel on a fresh button", before: [], input: Input(.cancel, t: 10), error: .notDown),
        Refusal(name: "up after up", before: [.down(0), .up(10)], input: Input(.up, t: 20), error: .notDown),
        Refusal(name: "move after cancel", before: [.down(0), .cancel(10)], input: Input(.move, t: 20, inside: false), error: .notDown),
        Refusal(
            name: "up exactly at max hold: the max-hold cancel fires first", config: ButtonConfig(maxHoldMs: 1000),
            before: [.down(0)], input: Input(.up, t: 1000), error: .notDown),
        Refusal(
            name: "up after max hold fired in real time", config: ButtonConfig(maxHoldMs: 1000),
            before: [.down(0), .fireDue(now: 1000)], input: Input(.up, t: 500), error: .notDown),
        Refusal(name: "down while disabled", config: ButtonConfig(enabled: false), before: [], input: Input(.down, t: 0), error: .disabled),
        Refusal(
            name: "up of a press that disabling cancelled", before: [.down(0), .enabled(false, now: 10)], input: Input(.up, t: 20),
            error: .disabled),
        Refusal(
            name: "a down with no t while disabled", config: ButtonConfig(maxTaps: 1, confirmMs: 2000, enabled: false),
            before: [], input: Input(.down), error: .disabled),
    ]

    @Test(arguments: refusals)
    func refusedAndUnchanged(_ refusal: Refusal) throws {
        var machine = ButtonMachine(config: refusal.config)
        _ = try machine.run(refusal.before)
        let snapshot = machine
        #expect(throws: refusal.error) { _ = try machine.apply(refusal.input, now: refusal.input.t ?? 0) }
        #expect(machine == snapshot)
    }

    @Test(arguments: [
        (InputError.outOfOrder(lastInputT: 5), "out_of_order"), (.alreadyDown, "already_down"), (.notDown, "not_down"),
        (.disabled, "button_disabled"),
    ])
    func codes(error: InputError, code: String) {
        #expect(error.code == code)
        #expect(!error.message.isEmpty)
    }

    @Test func equalTAppliesInArrivalOrder() throws {
        var machine = ButtonMachine(config: ButtonConfig())
        let events = try machine.run([.down(100), .move(100, inside: false), .up(100)])
        #expect(events.texts == ["touch-down@100", "touch-drag-exit@100", "touch-up-outside@100 durationMs=0"])
    }

    @Test func aRefusedInputDoesNotFireTheDueTimers() throws {
        var machine = ButtonMachine(config: ButtonConfig(maxHoldMs: 1000))
        _ = try machine.apply(Input(.down, t: 0), now: 0)
        #expect(throws: InputError.notDown) { _ = try machine.apply(Input(.up, t: 1000), now: 1000) }
        #expect(machine.nextDeadline == 500)
        #expect(machine.clock == 0)
        #expect(machine.state.held)
        #expect(
            machine.advance(to: 1000).texts == ["long-press@500 durationMs=500", "touch-cancel@1000 reason=max-hold"])
    }

    @Test func aBatchOnCopiesIsAllOrNothing() throws {
        let original = ButtonMachine(config: ButtonConfig())
        var copy = original
        let batch = [Input(.down, t: 0), Input(.up, t: 10), Input(.up, t: 20)]
        var refusedAt: Int?
        for (index, input) in batch.enumerated() {
            do { _ = try copy.apply(input, now: 0) } catch { refusedAt = index; break }
        }
        #expect(refusedAt == 2)
        #expect(original == ButtonMachine(config: ButtonConfig()))
    }
}
