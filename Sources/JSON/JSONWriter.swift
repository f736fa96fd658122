/// Serializes JSON into bytes: object keys sorted so output is deterministic, strings escaped
/// per RFC 8259. Hot paths append into one buffer instead of building intermediate strings.
public struct JSONWriter {
    public var bytes: [UInt8] = []

    public init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    public static func encode(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(value)
        return writer.bytes
    }

    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let b): raw(b ? "true" : "false")
        case .int(let i): write(i)
        case .double(let d): bytes.append(contentsOf: d.description.utf8)
        case .string(let s): write(s)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (i, key) in members.keys.sorted().enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                write(key)
                bytes.append(UInt8(ascii: ":"))
                write(members[key]!)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    public mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    public mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    public mutating func write(_ value: Int64) {
        JSONCursor.append(to: &bytes, bound: JSONCursor.integerBound) { $0.integer(value) }
    }

    /// A quoted, escaped string. Its bytes are escaped on the stack (up to six bytes each)
    /// and appended once.
    public mutating func write(_ string: String) {
        JSONCursor.append(to: &bytes, bound: JSONCursor.bound(of: string)) { $0.string(string) }
    }

    /// Appends what `body` writes through a cursor, in at most `bound` bytes: for a piece
    /// written in many parts (an event's head), one append instead of one per part.
    public mutating func append(bound: Int, _ body: (inout JSONCursor) -> Void) {
        JSONCursor.append(to: &bytes, bound: bound, body)
    }

    /// Writes `"key":` (with a leading comma unless `first`), for hand-rolled objects.
    public mutating func key(_ key: StaticString, first: Bool = false) {
        JSONCursor.append(to: &bytes, bound: key.utf8CodeUnitCount + 4) { $0.key(key, first: first) }
    }
}
