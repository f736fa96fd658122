import ButtonEngine
import Buttons
import JSON
import OSC

/// An OSC message to buttond (SPEC §10) as the sequencer command the HTTP API would make of
/// it: the same checks, the same order.
enum OSCCommand {
    static let root = "/buttond/"
    /// Asks for every button's and sheet's current feedback (`OSCFeedback.sync`).
    static let syncAddress = "/buttond/sync"

    static func parse(_ message: OSCMessage) throws(ButtonsError) -> Command {
        let parts = message.address.split(separator: "/", omittingEmptySubsequences: false)
        // "", "buttond", "button"|"sheet", id[, verb]
        guard message.address.hasPrefix(root), parts.count == 4 || parts.count == 5, !parts[3].isEmpty else {
            throw unknown(message.address)
        }
        let id = String(parts[3])
        let verb = parts.count == 5 ? String(parts[4]) : nil
        switch parts[2] {
        case "button": return try button(id, verb: verb, message)
        case "sheet": return try sheet(id, verb: verb, message)
        default: throw unknown(message.address)
        }
    }

    private static func unknown(_ address: String) -> ButtonsError {
        ButtonsError.invalid(
            "address",
            "no OSC address \(address.prefix(200)); use /buttond/button/<id>[/down|up|press|cancel|face] or /buttond/sheet/<id>/open|cancel|choose, or /buttond/sync")
    }

    private static func button(_ id: String, verb: String?, _ message: OSCMessage) throws(ButtonsError) -> Command {
        let args = message.arguments
        switch verb {
        case nil:
            // A TouchOSC or Open Stage Control momentary button: 1.0 pressed, 0.0 released.
            guard args.count == 1, let value = number(args[0]) else {
                throw ButtonsError.invalid("args", "\(message.address) takes one number: non-zero is down, zero is up")
            }
            return .input(button: id, Input(value != 0 ? .down : .up))
        case "down": return .input(button: id, Input(.down, t: try t(message)))
        case "up": return .input(button: id, Input(.up, t: try t(message)))
        case "cancel": return .input(button: id, Input(.cancel, t: try t(message)))
        case "press": return .press(button: id, down: Input(.down, t: try t(message)), holdMs: 0)
        case "face":
            guard args.count == 1, let face = number(args[0]), face == 0 || face == 1 else {
                throw ButtonsError.invalid("args", "\(message.address) takes one integer, 0 or 1")
            }
            return .face(button: id, face: Int(face))
        default: throw unknown(message.address)
        }
    }

    private static func sheet(_ id: String, verb: String?, _ message: OSCMessage) throws(ButtonsError) -> Command {
        switch verb {
        case "open": return .sheet(id, .open, t: try t(message))
        case "cancel": return .sheet(id, .cancel, t: try t(message))
        case "choose":
            switch message.arguments.first {
            case .string(let option)? where message.arguments.count == 1: return .sheet(id, .choose(.string(option)), t: nil)
            case let arg? where message.arguments.count == 1 && arg.integer != nil:
                return .sheet(id, .choose(.int(arg.integer ?? 0)), t: nil)
            default: throw ButtonsError.invalid("args", "\(message.address) takes one argument: an option id (s) or index (i)")
            }
        default: throw unknown(message.address)
        }
    }

    /// The optional `t` (ms, `h` or `i`); nil means the server clock.
    private static func t(_ message: OSCMessage) throws(ButtonsError) -> Int64? {
        switch message.arguments.count {
        case 0: return nil
        case 1:
            guard let t = message.arguments[0].integer, (0...Fields.maxT).contains(t) else {
                throw ButtonsError.invalid("t", "\(message.address) takes at most one integer t (ms since the epoch, h or i)")
            }
            return try Fields.milliseconds(t, field: "t")
        default: throw ButtonsError.invalid("args", "\(message.address) takes at most one argument, t")
        }
    }

    /// A number of any OSC kind; `T`/`F` as 1/0.
    private static func number(_ arg: OSCArgument) -> Double? {
        if case .bool(let value) = arg { return value ? 1 : 0 }
        return arg.number
    }
}
