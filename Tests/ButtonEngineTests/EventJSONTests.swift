import ButtonEngine
import JSON
import Testing

/// The one shape of an event's JSON, alone: what the sequencer writes and the store reads back.
@Suite struct EventJSONTests {
    /// `EventJSON.parts` finds what `render` wrote, and refuses what it did not.
    @Test func partsAreFoundOnlyInWhatRenderWrites() {
        let json = EventJSON.render(
            id: "evt_x_1", seq: 1, type: "tap", button: nil, sheet: "s", t: 5, data: Array(#"{"index":0}"#.utf8), by: "b")
        let parts = EventJSON.parts(of: json, id: "evt_x_1", seq: 1, type: "tap", button: nil, sheet: "s", t: 5)
        #expect(parts?.data == Array(#"{"index":0}"#.utf8))
        #expect(parts?.by == "b")
        #expect(EventJSON.parts(of: json, id: "evt_x_1", seq: 2, type: "tap", button: nil, sheet: "s", t: 5) == nil)
        #expect(EventJSON.parts(of: json, id: "evt_x_1", seq: 1, type: "tap", button: "s", sheet: nil, t: 5) == nil)
        var extra = json
        extra.insert(contentsOf: Array(#","more":1"#.utf8), at: extra.count - 1)
        #expect(EventJSON.parts(of: extra, id: "evt_x_1", seq: 1, type: "tap", button: nil, sheet: "s", t: 5) == nil)
    }

    /// The data object leaves nil fields out, keeps one order, and stays within its bound.
    @Test func theDataObjectHasOnlyItsFields() {
        let cases: [(EventData, String)] = [
            (EventData(), "{}"),
            (EventData(tapCount: 2), #"{"tapCount":2}"#),
            (EventData(face: 1, previousFace: 0), #"{"face":1,"previousFace":0}"#),
            (EventData(option: "a\"b", index: 3), #"{"option":"a\"b","index":3}"#),
        ]
        for (data, expected) in cases {
            let json = JSONCursor.render(bound: EventJSON.dataBound(of: data)) { EventJSON.data(data, into: &$0) }
            #expect(String(decoding: json, as: UTF8.self) == expected)
        }
    }
}
