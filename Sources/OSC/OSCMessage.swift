/// One OSC argument of the types buttond reads and writes (`i h f d s T F N`); any other
/// type tag a peer sends (a blob, a MIDI message…) is kept as `unsupported` with its tag.
public enum OSCArgument: Sendable, Equatable {
    case int32(Int32)
    case int64(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case bool(Bool)
    case null
    case unsupported(Character)

    /// Its OSC type tag.
    public var tag: Character {
        switch self {
        case .int32: "i"
        case .int64: "h"
        case .float: "f"
        case .double: "d"
        case .string: "s"
        case .bool(let value): value ? "T" : "F"
        case .null: "N"
        case .unsupported(let tag): tag
        }
    }

    /// The value as a number, for the numeric types.
    public var number: Double? {
        switch self {
        case .int32(let v): Double(v)
        case .int64(let v): Double(v)
        case .float(let v): Double(v)
        case .double(let v): v
        default: nil
        }
    }

    /// The value as an integer, for `i` and `h`.
    public var integer: Int64? {
        switch self {
        case .int32(let v): Int64(v)
        case .int64(let v): v
        default: nil
        }
    }
}

/// An OSC message: an address and its typed arguments.
public struct OSCMessage: Sendable, Equatable {
    public var address: String
    public var arguments: [OSCArgument]

    public init(_ address: String, _ arguments: [OSCArgument] = []) {
        self.address = address
        self.arguments = arguments
    }

    /// The type tags without the leading comma, e.g. `ifs`.
    public var typeTags: String { String(arguments.map(\.tag)) }
}
