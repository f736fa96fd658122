import ButtonEngine
import Testing

/// Randomized sequences (seeded, so reproducible) checked against the invariants of §4, and
/// refused inputs checked to leave the machine unchanged.
@Suite struct RandomizedTests {
    static let seeds: [UInt64] = Array(1...40)

    @Test(arguments: seeds)
    func invariantsHold(seed: UInt64) {
        var random = RandomInputs(seed: seed)
        let config = random.config()
        var machine = ButtonMachine(config: config)
        var checker = InvariantChecker(config: config)
        var serverNow: Int64 = 1_000_000
        var t: Int64 = 0
        var refused = 0

        for _ in 0..<2000 {
            serverNow += Int64.random(in: 0...300, using: &random.rng)
            if random.rng.chance(10) {
                // Time passes on the server.
                checker.consume(machine.fireDue(now: serverNow))
            } else if random.rng.chance(3), config.kind == .toggle {
                checker.consume(machine.setFace(Int.random(in: 0...1, using: &random.rng), now: serverNow))
            } else {
                let input = random.input(after: t, held: machine.state.held)
                let before = machine
                do {
                    checker.consume(try machine.apply(input, now: serverNow))
                    t = machine.lastInputT ?? t
                } catch {
                    refused += 1
                    #expect(machine == before, "a refused \(input.kind) changed the machine")
                }
            }
            #expect(machine.state.held == checker.inPress)
            #expect(machine.state.tapCount == checker.tapsInSeries)
            #expect(machine.state.face == checker.face)
            if !checker.violations.isEmpty { break }
        }
        checker.consume(machine.advance(to: .max))
        #expect(machine.nextDeadline == nil)
        checker.finish()
        #expect(checker.violations == [], "seed \(seed), config \(config)")
        #expect(refused > 0)
        #expect(checker.nTapCount > 0)
    }
}
