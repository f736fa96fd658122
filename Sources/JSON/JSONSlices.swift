/// The bytes of the elements of an array member of a JSON object, exactly as they were sent:
/// the CLI prints events in the server's key order, which a parsed `JSONValue` (a dictionary)
/// does not keep. The input is assumed valid JSON (check it with `JSONParser` first).
public enum JSONSlices {
    /// The elements of `key`'s array in the top-level object of `bytes`; nil when there is none.
    public static func elements(of key: String, in bytes: [UInt8]) -> [ArraySlice<UInt8>]? {
        var i = skipSpace(bytes, 0)
        guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        let wanted = Array("\"\(key)\"".utf8)
        while true {
            i = skipSpace(bytes, i)
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
            let nameEnd = end(of: bytes, at: i)
            let isWanted = bytes[i..<nameEnd].elementsEqual(wanted)
            i = skipSpace(bytes, nameEnd)
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
            i = skipSpace(bytes, i + 1)
            if isWanted { return bytes[i] == UInt8(ascii: "[") ? items(bytes, from: i) : nil }
            i = skipSpace(bytes, end(of: bytes, at: i))
            guard i < bytes.count, bytes[i] == UInt8(ascii: ",") else { return nil }
            i += 1
        }
    }

    /// The elements of the array that starts at `start`.
    static func items(_ bytes: [UInt8], from start: Int) -> [ArraySlice<UInt8>] {
        var slices: [ArraySlice<UInt8>] = []
        var i = skipSpace(bytes, start + 1)
        while i < bytes.count, bytes[i] != UInt8(ascii: "]") {
            let stop = end(of: bytes, at: i)
            slices.append(bytes[i..<stop])
            i = skipSpace(bytes, stop)
            if i < bytes.count, bytes[i] == UInt8(ascii: ",") { i = skipSpace(bytes, i + 1) }
        }
        return slices
    }

    static func skipSpace(_ bytes: [UInt8], _ start: Int) -> Int {
        var i = start
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        return i
    }

    /// The index just past the value that starts at `start`.
    static func end(of bytes: [UInt8], at start: Int) -> Int {
        var depth = 0
        var inString = false
        var i = start
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            if inString {
                if b == UInt8(ascii: "\\") { i += 1 } else if b == UInt8(ascii: "\"") { inString = false }
                if !inString && depth == 0 { return i }
                continue
            }
            if depth == 0, [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(b) {
                return i - 1  // the end of a number, true, false or null
            }
            switch b {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return i }
            default: break
            }
        }
        return i
    }
}
