import JSON
import Testing

/// The bytes of an array member's elements exactly as sent (the CLI prints events in the
/// server's key order).
@Suite struct JSONSlicesTests {
    static func elements(_ key: String, _ text: String) -> [String]? {
        JSONSlices.elements(of: key, in: Array(text.utf8))?.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func elementsKeepTheirBytesAndOrder() {
        let page = #"{"next": null, "events": [{"z":1,"a":"}]"}, 2 , "x\"]", [3, {"b": []}], true], "after": 9}"#
        #expect(Self.elements("events", page) == [#"{"z":1,"a":"}]"}"#, "2", #""x\"]""#, #"[3, {"b": []}]"#, "true"])
        #expect(Self.elements("events", #" { "events" : [ ] } "#) == [])
        #expect(Self.elements("events", #"{"events":[-1.5e3,null]}"#) == ["-1.5e3", "null"])
    }

    @Test func anotherMembersValueIsSkippedWhole() {
        // A key named "events" inside another member's value is not the one asked for.
        let text = #"{"meta": {"events": [0]}, "note": "\"events\": [1]", "events": [2]}"#
        #expect(Self.elements("events", text) == ["2"])
    }

    @Test(arguments: [
        #"{"other": [1]}"#, #"{"events": 1}"#, #"{"events": {"a": 1}}"#, "[1, 2]", "", "null", #"{"events" 1}"#,
    ])
    func nilWithoutSuchAnArray(_ text: String) {
        #expect(Self.elements("events", text) == nil)
    }
}
