import ButtonEngine
import JSON
import Platform
import Testing

@testable import Buttons

/// An event's bytes, written once on the hot path with plain stores: exactly the JSON clients
/// have always seen, whatever its strings hold.
@Suite struct ControlEventTests {
    static func text(_ event: ControlEvent) -> String { String(decoding: event.json, as: UTF8.self) }

    @Test func aButtonEventIsWrittenAsClientsKnowIt() {
        let event = ControlEvent(
            seq: 1_234_567, idPrefix: "evt_abcdefgh_",
            gesture: GestureEvent(.touchUpInside, t: 1_700_000_000_123, data: EventData(durationMs: 80, pointer: "p\"1")),
            source: .button("door"), by: "kiosk")
        #expect(event.id == "evt_abcdefgh_qglj")
        #expect(
            Self.text(event)
                == #"{"id":"evt_abcdefgh_qglj","seq":1234567,"type":"touch-up-inside","button":"door","t":1700000000123,"#
                + #""at":"2023-11-14T22:13:20.123Z","data":{"durationMs":80,"pointer":"p\"1"},"by":"kiosk"}"#)
        #expect(String(decoding: event.json[event.dataRange], as: UTF8.self) == #"{"durationMs":80,"pointer":"p\"1"}"#)
    }

    @Test func everyFieldAndEveryEscapeOfASheetEvent() {
        let data = EventData(
            durationMs: -5, tapCount: 2, face: 1, previousFace: 0, repeat: 3, option: "a\u{01}é", index: 4, reason: "x\\y",
            pointer: "\n\t")
        let event = ControlEvent(
            seq: 42, idPrefix: "evt_", gesture: GestureEvent(.select, t: -1, data: data), source: .sheet("s\"1"))
        #expect(
            Self.text(event)
                == #"{"id":"evt_16","seq":42,"type":"select","sheet":"s\"1","t":-1,"at":"1969-12-31T23:59:59.999Z","#
                + #""data":{"durationMs":-5,"tapCount":2,"face":1,"previousFace":0,"repeat":3,"option":"a\u0001é","index":4,"#
                + #""reason":"x\\y","pointer":"\n\t"}}"#)
        let empty = ControlEvent(seq: 0, idPrefix: "", gesture: GestureEvent(.touchDown, t: 0), source: .button(""))
        #expect(
            Self.text(empty)
                == #"{"id":"0","seq":0,"type":"touch-down","button":"","t":0,"at":"1970-01-01T00:00:00.000Z","data":{}}"#)
        #expect(empty.dataRange.count == 2)
    }

    @Test(arguments: [0, 1, 35, 36, 1_295, 1_296, 1_234_567, .max, -1, -36, .min] as [Int64])
    func theIDIsThePrefixAndTheSeqInBase36(seq: Int64) throws {
        #expect(EventID.string(prefix: "evt_k3j9x0qa_", seq: seq) == "evt_k3j9x0qa_" + String(seq, radix: 36))
        #expect(EventID.string(prefix: "", seq: seq) == String(seq, radix: 36))
        // The JSON holds the same id, written in place (a prefix JSON must escape too).
        for prefix in ["evt_k3j9x0qa_", "", "q\"\\\u{1}_"] {
            let event = ControlEvent(seq: seq, idPrefix: prefix, gesture: GestureEvent(.tap, t: 0), source: .button("b"))
            let parsed = try JSONParser.parse(event.json)
            #expect(parsed["id"] == .string(prefix + String(seq, radix: 36)))
            #expect(event.id == prefix + String(seq, radix: 36))
        }
    }

    /// The events of one batch share its timestamp cache: across seconds, days and back in
    /// time each `at` is still its own.
    @Test func eventsOfABatchWriteTheirOwnTimeThroughTheSharedCache() {
        var timestamps = ISO8601Cache()
        for t: Int64 in [86_399_998, 86_399_999, 86_400_000, 86_400_001, 86_399_999, 1_000, 999, -1, -1_000, -1_001, 0] {
            let event = ControlEvent(
                seq: 1, idPrefix: "e", gesture: GestureEvent(.tap, t: t), source: .button("b"), by: nil, timestamps: &timestamps)
            let alone = ControlEvent(seq: 1, idPrefix: "e", gesture: GestureEvent(.tap, t: t), source: .button("b"))
            #expect(event.json == alone.json, "t \(t)")
            #expect(Self.text(event).contains(#""at":"\#(Timestamp.iso8601(milliseconds: t))""#), "t \(t)")
        }
    }
}
