import JSON
import Testing

/// The cursor the hot paths write through: its numbers, strings and keys are the writer's
/// bytes, and its bounds hold for the worst a string can be.
@Suite struct JSONCursorTests {
    static func rendered(bound: Int, _ body: (inout JSONCursor) -> Void) -> String {
        String(decoding: JSONCursor.render(bound: bound, body), as: UTF8.self)
    }

    @Test(arguments: [0, 7, -7, 9, 10, -10, 99, 100, 999_999, 1_000_000, 1_700_000_000_123, .max, .max - 1, .min, .min + 1] as [Int64])
    func integersAsTheWriterWritesThem(value: Int64) {
        #expect(Self.rendered(bound: JSONCursor.integerBound) { $0.integer(value) } == String(value))
        var writer = JSONWriter()
        writer.write(value)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == String(value))
    }

    /// Every count of digits, at its first and last number, either sign.
    @Test func integersOfEveryLength() {
        var values: [Int64] = [0, .max, .min]
        var power: Int64 = 1
        for _ in 0..<18 {
            power *= 10
            values += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)]
        }
        for value in values {
            #expect(Self.rendered(bound: JSONCursor.integerBound) { $0.integer(value) } == String(value))
        }
    }

    /// A byte to escape at each place of the first three words the scan reads eight at a time,
    /// and in the bytes after them: escaped, and read back as it was.
    @Test(arguments: ["\"", "\\", "\u{01}", "\u{1F}", "\n", "\u{7F}", "é"])
    func aByteToEscapeIsFoundWhereverItIs(special: String) throws {
        for offset in 0..<27 {
            let string = String(repeating: "a", count: offset) + special + "bcdefghijklmnop"
            let bytes = JSONCursor.render(bound: JSONCursor.bound(of: string)) { $0.string(string) }
            #expect(!bytes.contains { $0 < 0x20 }, "a raw control byte at \(offset)")
            #expect(try JSONParser.parse(bytes) == .string(string), "at \(offset)")
        }
    }

    @Test func piecesMakeAnObject() {
        let text = Self.rendered(bound: 64) { w in
            w.raw("{")
            w.key("seq", first: true)
            w.integer(-12)
            w.key("type")
            w.string("tap")
            w.raw(#","x":true}"#)
        }
        #expect(text == #"{"seq":-12,"type":"tap","x":true}"#)
    }

    /// Control characters take the six bytes the bound allows each; a string's quotes the two.
    @Test(arguments: ["", "a", "\u{00}\u{1F}\u{0B}", "\"\\", "é😀", String(repeating: "\u{01}", count: 300)])
    func aStringFitsItsBound(string: String) {
        let bytes = JSONCursor.render(bound: JSONCursor.bound(of: string)) { $0.string(string) }
        var writer = JSONWriter()
        writer.write(string)
        #expect(bytes == writer.bytes)
        #expect(bytes.count <= JSONCursor.bound(of: string))
    }

    @Test func theWorstStringFillsItsBoundExactly() {
        let string = String(repeating: "\u{1F}", count: 10)
        let bytes = JSONCursor.render(bound: JSONCursor.bound(of: string)) { $0.string(string) }
        #expect(bytes.count == JSONCursor.bound(of: string))
        #expect(String(decoding: bytes, as: UTF8.self) == "\"" + String(repeating: #"\u001f"#, count: 10) + "\"")
    }
}
