import ButtonEngine
import Foundation
import Testing

/// The JSON shapes the server relies on: event data without nil fields, configs with
/// defaults, wire spellings of the enums.
@Suite struct CodingTests {
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test(arguments: [
        (EventData(), "{}"), (EventData(durationMs: 500), #"{"durationMs":500}"#),
        (EventData(repeat: 2), #"{"repeat":2}"#), (EventData(face: 1, previousFace: 0), #"{"face":1,"previousFace":0}"#),
        (EventData(option: "a", index: 0), #"{"index":0,"option":"a"}"#),
        (EventData(reason: "max-hold", pointer: "p"), #"{"pointer":"p","reason":"max-hold"}"#),
    ])
    func eventDataOmitsNilFields(data: EventData, expected: String) throws {
        #expect(try Self.json(data) == expected)
        #expect(try JSONDecoder().decode(EventData.self, from: Data(expected.utf8)) == data)
    }

    @Test func aGestureEventEncodesItsTypeOnTheWire() throws {
        let event = GestureEvent(.longPressEnd, t: 5, data: EventData(durationMs: 5))
        #expect(try Self.json(event) == #"{"data":{"durationMs":5},"t":5,"type":"long-press-end"}"#)
    }

    @Test(arguments: [
        ("{}", ButtonConfig()),
        (#"{"kind":"toggle","maxTaps":3}"#, ButtonConfig(kind: .toggle, maxTaps: 3)),
        (
            #"{"kind":"push","longPressMs":800,"multiTapMs":250,"maxTaps":5,"repeatMs":100,"maxHoldMs":2000}"#,
            ButtonConfig(longPressMs: 800, multiTapMs: 250, maxTaps: 5, repeatMs: 100, maxHoldMs: 2000)
        ),
    ])
    func configDecodesWithDefaults(text: String, expected: ButtonConfig) throws {
        let config = try JSONDecoder().decode(ButtonConfig.self, from: Data(text.utf8))
        #expect(config == expected)
        #expect(try JSONDecoder().decode(ButtonConfig.self, from: JSONEncoder().encode(config)) == config)
    }

    @Test func defaults() {
        #expect(ButtonConfig() == ButtonConfig(kind: .push, longPressMs: 500, multiTapMs: 300, maxTaps: 2, repeatMs: 0, maxHoldMs: 60000))
    }

    @Test(arguments: EventType.allCases)
    func eventTypeSpelling(type: EventType) {
        #expect(type.rawValue.allSatisfy { $0.isLowercase || $0 == "-" })
        #expect(EventType(rawValue: type.rawValue) == type)
    }

    @Test func stateEncodes() throws {
        #expect(try Self.json(ButtonState(held: true, face: 1, tapCount: 2)) == #"{"face":1,"held":true,"tapCount":2}"#)
    }
}
