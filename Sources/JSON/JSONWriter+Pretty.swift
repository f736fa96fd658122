extension JSONWriter {
    /// Indented by two spaces, keys sorted: for files people keep under version control (a
    /// config exported by `buttond config export`), whose diffs should be one line per change.
    public static func encodePretty(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.writePretty(value, depth: 0)
        writer.bytes.append(UInt8(ascii: "\n"))
        return writer.bytes
    }

    mutating func writePretty(_ value: JSONValue, depth: Int) {
        func newline(_ depth: Int) {
            bytes.append(UInt8(ascii: "\n"))
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
        }
        switch value {
        case .array(let elements) where !elements.isEmpty:
            bytes.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                writePretty(element, depth: depth + 1)
            }
            newline(depth)
            bytes.append(UInt8(ascii: "]"))
        case .object(let members) where !members.isEmpty:
            bytes.append(UInt8(ascii: "{"))
            for (i, key) in members.keys.sorted().enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                write(key)
                bytes.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
                writePretty(members[key]!, depth: depth + 1)
            }
            newline(depth)
            bytes.append(UInt8(ascii: "}"))
        default:
            write(value)
        }
    }
}
