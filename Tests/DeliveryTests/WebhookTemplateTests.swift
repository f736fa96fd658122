import Delivery
import MicroHTTP
import Testing

/// `webhook.body`: a JSON template rendered per event, limited at registration (SPEC §5).
@Suite struct WebhookTemplateTests {
    static let event = PlaceholderTests.toggle
    static let fields = Placeholders(PlaceholderTests.toggleFacts)
    static let eventText =
        #"{"at":"2026-11-30T12:00:00.123Z","button":"desk","data":{"face":2,"previousFace":1},"#
        + #""id":"evt_1k","seq":56,"t":1796040000123,"type":"toggle"}"#

    static func render(_ template: JSONValue, _ fields: Placeholders = fields) throws -> String {
        String(decoding: try WebhookTemplate(template).render(fields, event: event), as: UTF8.self)
    }

    static let shapes: [(JSONValue, String)] = [
        // Home Assistant's REST API: POST /api/services/light/toggle.
        (["entity_id": "light.kitchen"], #"{"entity_id":"light.kitchen"}"#),
        (["entity_id": "light.{button}"], #"{"entity_id":"light.desk"}"#),
        // A Companion-like custom variable, and an OBS-bridge-like request.
        (
            ["name": "last_press", "value": "{label} ({type} #{seq})", "page": 1],
            #"{"name":"last_press","page":1,"value":"Desk lamp (toggle #56)"}"#
        ),
        (
            ["request-type": "SetCurrentScene", "scene-name": "Face {face}", "source": "{event}"],
            #"{"request-type":"SetCurrentScene","scene-name":"Face 2","source":"# + eventText + "}"
        ),
    ]

    @Test(arguments: shapes)
    func knownShapes(_ template: JSONValue, _ expected: String) throws {
        #expect(try Self.render(template) == expected)
    }

    static let events: [(JSONValue, String)] = [
        ("{event}", eventText),
        (["event": "{event}"], #"{"event":"# + eventText + "}"),
        (
            ["events": ["{event}", "{event}"]],
            #"{"events":["# + eventText + "," + eventText + "]}"
        ),
        // Inside other text `{event}` is not a placeholder.
        (["text": "got {event}"], #"{"text":"got {event}"}"#),
        (["text": " {event}"], #"{"text":" {event}"}"#),
        (["text": "{{event}}"], #"{"text":"{{event}}"}"#),
    ]

    @Test(arguments: events)
    func wholeEvent(_ template: JSONValue, _ expected: String) throws {
        #expect(try Self.render(template) == expected)
    }

    static let strings: [(JSONValue, String)] = [
        ("{button}", #""desk""#),
        (["a": [["b": "{button}"], "{seq}", ["{type}", ["{face}"]]]], #"{"a":[{"b":"desk"},56,["toggle",[2]]]}"#),
        ([["x": ["y": ["z": "{id}"]]]], #"[{"x":{"y":{"z":"evt_1k"}}}]"#),
        (["{button}": "{button}", "{event}": "k"], #"{"{button}":"desk","{event}":"k"}"#),  // keys untouched
        ([1, .double(2.5), true, nil, ["n": -3], [], [:]], #"[1,2.5,true,null,{"n":-3},[],{}]"#),  // non-strings untouched
        (["ha": "{{ states('light.{button}') }}"], #"{"ha":"{{ states('light.desk') }}"}"#),
        (["ha": "{{ states('sensor.x') }}", "u": "{unknown}"], #"{"ha":"{{ states('sensor.x') }}","u":"{unknown}"}"#),
    ]

    @Test(arguments: strings)
    func everyStringValueIsInterpolated(_ template: JSONValue, _ expected: String) throws {
        #expect(try Self.render(template) == expected)
    }

    @Test func valuesAreEscapedAndNotExpandedAgain() throws {
        var fields = Self.fields
        fields.label = "say \"{event}\"\n"
        #expect(try Self.render(["l": "{label}"], fields) == #"{"l":"say \"{event}\"\n"}"#)
        fields.label = "{event}"
        #expect(try Self.render(["l": "{label}"], fields) == #"{"l":"{event}"}"#)
    }

    @Test func renderingIsByteIdentical() throws {
        let template: JSONValue = ["b": ["{button}", ["z": 1, "a": "{event}"]], "a": "{label}", "m": "{t}"]
        let reordered: JSONValue = .object(["m": "{t}", "a": "{label}", "b": ["{button}", ["a": "{event}", "z": 1]]])
        let first = try WebhookTemplate(template).render(Self.fields, event: Self.event)
        for _ in 0..<20 {
            #expect(try WebhookTemplate(template).render(Self.fields, event: Self.event) == first)
            #expect(try WebhookTemplate(reordered).render(Self.fields, event: Self.event) == first)
        }
    }

    @Test func sheetEvents() throws {
        let fields = Placeholders(PlaceholderTests.selectFacts)
        let body = try WebhookTemplate(["scene": "{button}.{option}", "face": "{face}"])
            .render(fields, event: PlaceholderTests.select)
        #expect(String(decoding: body, as: UTF8.self) == #"{"face":"","scene":"scenes.movie"}"#)
    }

    /// A string whose encoding (with its two quotes) is `bytes` long.
    static func string(encodedIn bytes: Int) -> JSONValue { .string(String(repeating: "x", count: bytes - 2)) }

    /// `levels` arrays (or objects) one inside the other.
    static func nested(_ levels: Int, objects: Bool) -> JSONValue {
        (0..<levels).reduce(JSONValue.string("leaf")) { inner, _ in objects ? .object(["k": inner]) : .array([inner]) }
    }

    @Test func sizeLimit() throws {
        #expect(throws: Never.self) { try WebhookTemplate(Self.string(encodedIn: WebhookTemplate.maxEncodedBytes)) }
        #expect(throws: Never.self) { try WebhookTemplate(["v": "x"]) }
        let error = #expect(throws: TemplateError.self) {
            try WebhookTemplate(Self.string(encodedIn: WebhookTemplate.maxEncodedBytes + 1))
        }
        #expect(error?.message.contains("16384") == true)
        // Escapes count as sent: 6000 newlines are 12 000 bytes, 9000 are 18 000.
        #expect(throws: Never.self) { try WebhookTemplate(.string(String(repeating: "\n", count: 6000))) }
        #expect(throws: TemplateError.self) { try WebhookTemplate(.string(String(repeating: "\n", count: 9000))) }
    }

    @Test(arguments: [false, true])
    func depthLimit(objects: Bool) throws {
        #expect(throws: Never.self) { try WebhookTemplate(Self.nested(WebhookTemplate.maxDepth, objects: objects)) }
        let error = #expect(throws: TemplateError.self) {
            try WebhookTemplate(Self.nested(WebhookTemplate.maxDepth + 1, objects: objects))
        }
        #expect(error?.message.contains("16") == true)
        #expect(throws: TemplateError.self) { try WebhookTemplate(Self.nested(1000, objects: objects)) }
    }

    @Test(arguments: ["x", 0, true, nil, [], [:]] as [JSONValue])
    func anyJSONValueIsATemplate(_ template: JSONValue) throws {
        #expect(try WebhookTemplate(template).template == template)
    }
}
