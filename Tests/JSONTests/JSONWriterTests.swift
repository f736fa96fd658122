import JSON
import Testing
import TestSupport

/// The writer: deterministic bytes (sorted keys), RFC 8259 escapes, and whatever it writes
/// parses back to the same value.
@Suite struct JSONWriterTests {
    static func text(_ value: JSONValue) -> String { String(decoding: JSONWriter.encode(value), as: UTF8.self) }

    @Test(arguments: [
        (JSONValue.null, "null"), (true, "true"), (false, "false"), (0, "0"), (-7, "-7"),
        (.int(.min), "-9223372036854775808"), (.int(.max), "9223372036854775807"), (.double(2.5), "2.5"),
        ("", #""""#), ([], "[]"), ([:], "{}"), ([1, "a", nil], #"[1,"a",null]"#),
        (["b": 1, "a": ["d": 2, "c": 3]], #"{"a":{"c":3,"d":2},"b":1}"#),
    ] as [(JSONValue, String)])
    func writes(_ value: JSONValue, _ expected: String) {
        #expect(Self.text(value) == expected)
    }

    @Test func stringsAreEscapedAsRFC8259AsksAndNoMore() {
        #expect(Self.text("a\"b\\c") == #""a\"b\\c""#)
        #expect(Self.text("\n\r\t") == #""\n\r\t""#)
        #expect(Self.text("\u{00}\u{01}\u{08}\u{0C}\u{1F}") == #""\u0000\u0001\u0008\u000c\u001f""#)
        // Slash, DEL and non-ASCII go as they are (UTF-8).
        #expect(Self.text("/\u{7F}é😀") == "\"/\u{7F}é😀\"")
        #expect(Self.text(["k\"ey": "v"]) == #"{"k\"ey":"v"}"#)
    }

    @Test func handRolledObjectsWithKeyAndRaw() {
        var writer = JSONWriter()
        writer.raw("{")
        writer.key("seq", first: true)
        writer.write(Int64(-12))
        writer.key("type")
        writer.write("tap")
        writer.raw(",\"x\":" + "true")
        writer.raw("}")
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"seq":-12,"type":"tap","x":true}"#)
    }

    /// Random values (seeded: a failure names its seed) written and parsed back: the same value,
    /// and writing that again gives the same bytes.
    @Test(arguments: 0..<20)
    func randomValuesRoundTrip(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for _ in 0..<200 {
            let value = Self.randomValue(&random, depth: 0)
            let bytes = JSONWriter.encode(value)
            let parsed = try JSONParser.parse(bytes)
            #expect(parsed == value, "seed \(seed): \(String(decoding: bytes, as: UTF8.self))")
            #expect(JSONWriter.encode(parsed) == bytes, "seed \(seed)")
        }
    }

    static func randomString(_ random: inout SplitMix64) -> String {
        // Controls, quotes and backslashes (escaped), DEL, 2-, 3- and 4-byte UTF-8.
        let pool: [Unicode.Scalar] = ["\u{00}", "\u{01}", "\u{1F}", "\"", "\\", "/", "\u{7F}", "a", "Z", " ", "é", "€", "😀", "\u{FFFD}", "\u{10FFFF}"]
        var text = String.UnicodeScalarView()
        for _ in 0..<random.below(12) { text.append(pool[random.below(pool.count)]) }
        return String(text)
    }

    static func randomValue(_ random: inout SplitMix64, depth: Int) -> JSONValue {
        switch random.below(depth < 6 ? 8 : 6) {
        case 0: return .null
        case 1: return .bool(random.chance(50))
        case 2: return .int(Int64(bitPattern: random.next()) >> Int64(random.below(64)))
        case 3:
            let double = Double(bitPattern: random.next())
            return .double(double.isFinite ? double : Double(random.below(1000)) / 8)
        case 4, 5: return .string(randomString(&random))
        case 6: return .array((0..<random.below(5)).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<random.below(5) { members[randomString(&random)] = randomValue(&random, depth: depth + 1) }
            return .object(members)
        }
    }
}
