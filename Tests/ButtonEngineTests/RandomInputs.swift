import TestSupport
import ButtonEngine

/// Random configs and input steps for the randomized and replay tests: mostly plausible
/// input (chosen from the button's state), with some refused input, equal and missing `t`,
/// out-of-order `t` and waits mixed in.
struct RandomInputs {
    var rng: SplitMix64

    init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
    }

    mutating func config() -> ButtonConfig {
        ButtonConfig(
            kind: rng.chance(50) ? .toggle : .push,
            longPressMs: Int64.random(in: 50...800, using: &rng),
            multiTapMs: Int64.random(in: 50...500, using: &rng),
            maxTaps: Int.random(in: 1...5, using: &rng),
            repeatMs: rng.chance(50) ? 0 : Int64.random(in: 50...300, using: &rng),
            maxHoldMs: Int64.random(in: 1000...3000, using: &rng))
    }

    /// A config with guards: `minPressMs` alone (with any `maxTaps`), `lockoutMs`, `confirmMs`,
    /// or all three (those two with `maxTaps` 1, as validation demands).
    mutating func guardedConfig() -> ButtonConfig {
        var config = config()
        let which = Int.random(in: 0..<4, using: &rng)
        if which == 0 || which == 3 {
            // Room between the two, so that some presses tap.
            config.longPressMs = max(config.longPressMs, 300)
            config.minPressMs = Int64.random(in: 10...120, using: &rng)
        }
        if which == 1 || which == 3 { config.lockoutMs = Int64.random(in: 50...3000, using: &rng) }
        if which == 2 || which == 3 { config.confirmMs = Int64.random(in: 500...4000, using: &rng) }
        if config.firesSingleTapsOnly { config.maxTaps = 1 }
        return config
    }

    /// The next input at or after `t` (sometimes before, to be refused).
    mutating func input(after t: Int64, held: Bool) -> Input {
        var next = t
        switch Int.random(in: 0..<100, using: &rng) {
        case ..<10: break  // equal t
        case ..<60: next += Int64.random(in: 1...200, using: &rng)
        case ..<90: next += Int64.random(in: 1...900, using: &rng)
        case ..<95: next += Int64.random(in: 1000...4000, using: &rng)
        default: next -= Int64.random(in: 1...100, using: &rng)  // out of order
        }
        let kind: InputKind
        if rng.chance(8) {
            kind = InputKind.allCases.randomElement(using: &rng) ?? .down  // possibly refused
        } else if held {
            kind = [.move, .move, .up, .up, .up, .cancel].randomElement(using: &rng) ?? .up
        } else {
            kind = .down
        }
        let inside: Bool? =
            switch kind {
            case .move: rng.chance(50)
            case .up: rng.chance(20) ? rng.chance(50) : nil
            default: nil
            }
        let pointer = rng.chance(30) ? "p\(Int.random(in: 1...3, using: &rng))" : nil
        return Input(kind, t: rng.chance(5) ? nil : next, inside: inside, pointer: pointer)
    }
}
