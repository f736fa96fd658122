// The gesture engine alone, with no HTTP and no storage: how many raw inputs one core turns
// into control events per second (`make bench` scenario 6, target >= 1 000 000 inputs/s).
//
// A realistic mix on one push button and one toggle: quick taps (series of two -> double-tap),
// single taps whose series ends on its timer, and long presses (long-press fires before the
// up, then long-press-end). Prints one machine-readable line:
//   ENGINEJSON {"inputs":N,"events":N,"seconds":S,"inputs_per_second":R}
//
// Usage: engine-bench [SECONDS]   (default 2; the best of 3 rounds is reported)
import ButtonEngine

#if canImport(Glibc)
    import Glibc
#endif

@inline(never)
func measure(budget: Duration) -> (inputs: Int, events: Int, elapsed: Duration) {
    var push = ButtonMachine(config: ButtonConfig())
    var toggle = ButtonMachine(config: ButtonConfig(kind: .toggle, maxTaps: 1))
    let clock = ContinuousClock()
    let start = clock.now
    var t: Int64 = 1_795_954_800_000
    var inputs = 0
    var events = 0
    var elapsed: Duration = .zero
    // Check the clock every `batch` iterations only; each iteration is 8 inputs.
    let batch = 4096
    while elapsed < budget {
        for _ in 0..<batch {
            do {
                // A double tap: two quick presses within multiTapMs.
                events += try push.apply(Input(.down, t: t), now: t).count
                events += try push.apply(Input(.up, t: t + 40), now: t + 40).count
                events += try push.apply(Input(.down, t: t + 120), now: t + 120).count
                events += try push.apply(Input(.up, t: t + 160), now: t + 160).count
                // A long press (the long-press timer fires inside the up).
                events += try push.apply(Input(.down, t: t + 1000), now: t + 1000).count
                events += try push.apply(Input(.up, t: t + 1700), now: t + 1700).count
                // A toggle flip (maxTaps 1: single-tap at once).
                events += try toggle.apply(Input(.down, t: t), now: t).count
                events += try toggle.apply(Input(.up, t: t + 30), now: t + 30).count
            } catch {
                fatalError("engine refused an input: \(error)")
            }
            inputs += 8
            t += 2000
        }
        elapsed = clock.now - start
    }
    return (inputs, events, elapsed)
}

let seconds = CommandLine.arguments.count > 1 ? Double(CommandLine.arguments[1]) ?? 2 : 2
var best: (inputs: Int, events: Int, rate: Double, seconds: Double) = (0, 0, 0, 0)
for _ in 0..<3 {
    let r = measure(budget: .milliseconds(Int64(seconds * 1000 / 3)))
    let s = Double(r.elapsed.components.seconds) + Double(r.elapsed.components.attoseconds) / 1e18
    let rate = Double(r.inputs) / s
    if rate > best.rate { best = (r.inputs, r.events, rate, s) }
}
print(
    "ENGINEJSON {\"inputs\":\(best.inputs),\"events\":\(best.events),\"seconds\":\(best.seconds),"
        + "\"inputs_per_second\":\(Int(best.rate))}")
