@testable import JSON
import Testing

/// The strict parser (RFC 8259): what it accepts, and every reject with its message and the
/// byte it names, since a client is told both.
@Suite struct JSONParserTests {
    static func parse(_ text: String, maxDepth: Int = 32) throws(JSONParser.Failure) -> JSONValue {
        try JSONParser.parse(Array(text.utf8), maxDepth: maxDepth)
    }

    @Test(arguments: [
        ("null", JSONValue.null), ("true", true), ("false", false), ("0", 0), ("-0", 0), ("42", 42),
        ("-9223372036854775808", .int(.min)), ("9223372036854775807", .int(.max)),
        ("9223372036854775808", .double(9.223_372_036_854_775_808e18)),  // past Int64: a double
        ("2.5", .double(2.5)), ("-1e3", .double(-1000)), ("1E+2", .double(100)), ("1.5e-2", .double(0.015)), ("2.0", .double(2)),
        (#""""#, ""), (#""a""#, "a"), ("[]", []), ("{}", [:]), (" \t\r\n[ 1 , [ ] , { } ]\n", [1, [], [:]]),
        (#"{"a": {"b": [null, true]}, "c": "d"}"#, ["a": ["b": [nil, true]], "c": "d"]),
    ] as [(String, JSONValue)])
    func accepts(_ text: String, _ expected: JSONValue) throws {
        #expect(try Self.parse(text) == expected)
    }

    @Test func escapesAreDecoded() throws {
        let text = #""\" \\ \/ \b \f \n \r \t \u00e9 \u20AC \ud83d\ude00 é😀""#
        #expect(try Self.parse(text) == .string("\" \\ / \u{08} \u{0C} \n \r \t é € 😀 é😀"))
    }

    /// Each reject: the text, the message, the byte offset the message names.
    @Test(arguments: [
        ("", "unexpected end of JSON", 0),
        ("   ", "unexpected end of JSON", 3),
        ("{", "expected a string key", 1),
        (#"{"a":1,}"#, "expected a string key", 7),
        ("{1: 2}", "expected a string key", 1),
        (#"{"a" 1}"#, "expected ':'", 5),
        (#"{"a":1 "b":2}"#, "expected ',' or '}'", 7),
        ("[1 2]", "expected ',' or ']'", 3),
        ("[1,]", "unexpected character", 3),
        ("[", "unexpected end of JSON", 1),
        ("01", "unexpected data after the JSON value", 1),
        ("[1] x", "unexpected data after the JSON value", 4),
        ("1.", "invalid number", 2),
        ("-", "invalid number", 1),
        ("1e", "invalid number", 2),
        ("1e+", "invalid number", 3),
        (".5", "unexpected character", 0),
        ("+1", "unexpected character", 0),
        ("1e999", "number out of range", 5),
        ("tru", "invalid literal", 0),
        ("nul", "invalid literal", 0),
        ("trUe", "invalid literal", 0),
        ("True", "unexpected character", 0),
        ("\u{0C}1", "unexpected character", 0),  // a form feed is not JSON whitespace
        (#""abc"#, "unterminated string", 4),
        (#""a\"#, "unterminated string", 3),
        ("\"a\u{01}\"", "control character in string", 2),
        ("\"a\\n\u{1F}\"", "control character in string", 5),
        (#""\x""#, "invalid escape", 3),
        (#""\u12""#, "invalid \\u escape", 3),
        (#""\uZZZZ""#, "invalid \\u escape", 3),
        (#""\ud800""#, "lone surrogate in \\u escape", 7),
        (#""\udc00""#, "lone surrogate in \\u escape", 7),
        (#""\ud800\u0041""#, "lone surrogate in \\u escape", 13),
        (#"{"a": 1, "a": 2}"#, "duplicate key 'a'", 15),
    ] as [(String, String, Int)])
    func rejects(_ text: String, _ message: String, _ offset: Int) {
        #expect(throws: JSONParser.Failure(message: message, offset: offset), "\(text)") { try Self.parse(text) }
    }

    @Test func invalidUTF8IsRefusedInStringsAndOutside() {
        #expect(throws: JSONParser.Failure(message: "invalid UTF-8 in string", offset: 4)) {
            try JSONParser.parse([0x22, 0xFF, 0xFE, 0x22])
        }
        // An escape on the slow path, then a truncated sequence.
        #expect(throws: JSONParser.Failure(message: "invalid UTF-8 in string", offset: 6)) {
            try JSONParser.parse([0x22, 0x5C, 0x6E, 0xE2, 0x82, 0x22])
        }
        #expect(throws: JSONParser.Failure(message: "unexpected character", offset: 0)) { try JSONParser.parse([0xEF, 0xBB, 0xBF, 0x31]) }
    }

    @Test func nestingIsLimitedToMaxDepth() throws {
        let deep = { (levels: Int) in String(repeating: "[", count: levels) + String(repeating: "]", count: levels) }
        _ = try Self.parse(deep(32))
        #expect(throws: JSONParser.Failure(message: "JSON nested deeper than 32 levels", offset: 32)) { try Self.parse(deep(33)) }
        let objects = String(repeating: #"{"k":"#, count: 4) + "1" + String(repeating: "}", count: 4)
        _ = try Self.parse(objects, maxDepth: 4)
        #expect(throws: JSONParser.Failure(message: "JSON nested deeper than 3 levels", offset: 15)) { try Self.parse(objects, maxDepth: 3) }
    }

    @Test func theFailureSaysWhereForAClient() {
        #expect(JSONParser.Failure(message: "expected a string key", offset: 1).description == "malformed JSON at byte 1: expected a string key")
    }
}
