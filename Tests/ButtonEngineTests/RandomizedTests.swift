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
        let checker = Self.run(config, &random)
        #expect(checker.violations == [], "seed \(seed), config \(config)")
        #expect(checker.nTapCount > 0)
    }

    /// With guards on, and the button disabled and enabled again now and then: every guard
    /// rule holds, and each guard had something to do.
    @Test(arguments: Array(41...120) as [UInt64])
    func guardsHold(seed: UInt64) {
        var random = RandomInputs(seed: seed)
        let config = random.guardedConfig()
        let checker = Self.run(config, &random, disabling: true)
        #expect(checker.violations == [], "seed \(seed), config \(config)")
        #expect(checker.nTapCount > 0, "seed \(seed), config \(config)")
        if config.minPressMs > 0 || config.lockoutMs > 0 { #expect(checker.refusedCount > 0, "seed \(seed), config \(config)") }
        if config.confirmMs > 0 { #expect(checker.armedCount > 1, "seed \(seed), config \(config)") }
    }

    /// 2000 random steps on one button, then every timer fired; the checker that followed it.
    static func run(_ config: ButtonConfig, _ random: inout RandomInputs, disabling: Bool = false) -> InvariantChecker {
        var machine = ButtonMachine(config: config)
        var checker = InvariantChecker(config: config)
        var serverNow: Int64 = 1_000_000
        var t: Int64 = 0
        var refused = 0

        for _ in 0..<2000 {
            serverNow += Int64.random(in: 0...300, using: &random.rng)
            if disabling, random.rng.chance(machine.config.enabled ? 1 : 20) {
                let enable = !machine.config.enabled
                let events = machine.setEnabled(enable, now: serverNow)
                if enable { #expect(events.isEmpty) }
                checker.consumeEnding(events)
                #expect(machine.state.held == false || enable)
                #expect(machine.state.armed == false || enable)
            } else if random.rng.chance(10) {
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
                    if !machine.config.enabled { #expect(error == .disabled) }
                }
            }
            #expect(machine.state.held == checker.inPress)
            #expect(machine.state.tapCount == checker.tapsInSeries)
            #expect(machine.state.face == checker.face)
            #expect(machine.state.armedUntil == checker.armedUntil)
            if !checker.violations.isEmpty { break }
        }
        checker.consume(machine.advance(to: .max))
        #expect(machine.nextDeadline == nil)
        checker.finish()
        #expect(refused > 0)
        return checker
    }
}
