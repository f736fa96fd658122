import ButtonEngine

/// One step of a scripted scenario: an input (applied with `now` = its `t`), or a way of
/// letting time pass.
enum Step: Sendable, CustomStringConvertible {
    case input(Input)
    /// `advance(to:)` on the button's clock.
    case advance(Int64)
    /// `fireDue(now:)` on the server's clock.
    case fireDue(now: Int64)
    /// `setEnabled(_:now:)` on the server's clock.
    case enabled(Bool, now: Int64)
    /// `reset(now:)` on the server's clock.
    case reset(now: Int64)

    static func down(_ t: Int64, pointer: String? = nil) -> Step {
        .input(Input(.down, t: t, pointer: pointer))
    }
    static func move(_ t: Int64, inside: Bool, pointer: String? = nil) -> Step {
        .input(Input(.move, t: t, inside: inside, pointer: pointer))
    }
    static func up(_ t: Int64, inside: Bool? = nil, pointer: String? = nil) -> Step {
        .input(Input(.up, t: t, inside: inside, pointer: pointer))
    }
    static func cancel(_ t: Int64) -> Step {
        .input(Input(.cancel, t: t))
    }

    var description: String {
        switch self {
        case .input(let input):
            var text = "\(input.kind.rawValue)@\(input.t.map(String.init) ?? "now")"
            if let inside = input.inside { text += " inside=\(inside)" }
            return text
        case .advance(let t): return "advance@\(t)"
        case .fireDue(let now): return "fireDue(now: \(now))"
        case .enabled(let enabled, let now): return "setEnabled(\(enabled), now: \(now))"
        case .reset(let now): return "reset(now: \(now))"
        }
    }
}

extension ButtonMachine {
    /// Runs the steps in order, inputs with `now` equal to their `t` (or `now` if nil).
    mutating func run(_ steps: [Step], now: Int64 = 0) throws(InputError) -> [GestureEvent] {
        var events: [GestureEvent] = []
        for step in steps {
            switch step {
            case .input(let input): events += try apply(input, now: input.t ?? now)
            case .advance(let t): events += advance(to: t)
            case .fireDue(let now): events += fireDue(now: now)
            case .enabled(let enabled, let now): events += setEnabled(enabled, now: now)
            case .reset(let now): events += reset(now: now)
            }
        }
        return events
    }
}
