import Buttons
import JSON
import Testing

@testable import Bridges

/// Commands published to `<base>/button/<id>/set` and `<base>/sheet/<id>/set` (SPEC §9): the
/// sequencer commands the HTTP API would make, and the same refusals.
@Suite struct MQTTCommandTests {
    static let base = "buttond/hall"

    static func parse(_ topic: String, _ payload: String, in fixture: RegistryFixture) throws(ButtonsError) -> MQTTCommand.Action {
        try MQTTCommand.parse(topic: topic, payload: Array(payload.utf8), base: base, registry: fixture.registry)
    }

    static func withRegistry(_ body: (RegistryFixture) throws -> Void) throws {
        let fixture = try RegistryFixture(
            buttons: [#"{"id": "door"}"#, #"{"id": "lamp", "kind": "toggle"}"#],
            sheets: [#"{"id": "scene", "options": [{"id": "a", "label": "Bright"}, {"id": "b", "label": "Dim"}]}"#])
        defer { fixture.close() }
        try body(fixture)
    }

    static func command(_ action: MQTTCommand.Action) -> String {
        switch action {
        case .command(let command): describe(command)
        case .look(let button, let json): "look \(button) " + String(decoding: JSONWriter.encode(json), as: UTF8.self)
        case .enabled(let button, let enabled): "enabled \(button) \(enabled)"
        }
    }

    @Test(arguments: [
        ("buttond/hall/button/door/set", "press", "press door down hold=0"),
        ("buttond/hall/button/door/set", " down\n", "input door down"),
        ("buttond/hall/button/door/set", "up", "input door up"),
        ("buttond/hall/button/door/set", "cancel", "input door cancel"),
        ("buttond/hall/button/door/set", #"{"type": "move", "inside": false, "pointer": 7}"#, "input door move inside=false pointer=7"),
        ("buttond/hall/button/door/set", #"{"type": "down", "t": 1700000000000}"#, "input door down t=1700000000000"),
        ("buttond/hall/button/lamp/set", #"{"face": 1}"#, "face lamp 1"),
        ("buttond/hall/button/lamp/set", #"{"status": "on air"}"#, #"look lamp {"status":"on air"}"#),
        ("buttond/hall/button/door/set", #"{"enabled": false}"#, "enabled door false"),
        ("buttond/hall/button/door/set", #"{"enabled": true}"#, "enabled door true"),
        ("buttond/hall/sheet/scene/set", "open", "sheet scene open"),
        ("buttond/hall/sheet/scene/set", "cancel", "sheet scene cancel"),
        ("buttond/hall/sheet/scene/set", #"{"option": "Dim"}"#, #"sheet scene choose "b""#),
        ("buttond/hall/sheet/scene/set", #"{"option": "a"}"#, #"sheet scene choose "a""#),
        ("buttond/hall/sheet/scene/set", #"{"option": 1}"#, "sheet scene choose 1"),
    ])
    func aPayloadIsACommand(topic: String, payload: String, command: String) throws {
        try Self.withRegistry { fixture in
            let action = try Self.parse(topic, payload, in: fixture)
            #expect(Self.command(action) == command)
        }
    }

    /// The refusal a client would get from the HTTP API for the same input: status, code, field.
    @Test(arguments: [
        ("buttond/hall/button/door/get", "press", 422, "invalid_value", "topic"),
        ("buttond/hall/knob/door/set", "press", 422, "invalid_value", "topic"),
        ("buttond/hall/button/gone/set", "press", 404, "not_found", nil),
        ("buttond/hall/button/door/set", "jump", 422, "invalid_value", "payload"),
        ("buttond/hall/button/door/set", #"{"type": "move"}"#, 422, "invalid_value", "inside"),
        ("buttond/hall/button/door/set", #"{"type": "down", "t": 1700000000}"#, 422, "t_not_milliseconds", "t"),
        ("buttond/hall/button/door/set", #"{"type": "down", "tt": 1}"#, 422, "invalid_value", "tt"),
        ("buttond/hall/button/door/set", #"{"type": "down""#, 400, "bad_request", nil),
        ("buttond/hall/button/lamp/set", #"{"face": 2}"#, 422, "invalid_value", "face"),
        ("buttond/hall/button/door/set", #"{"enabled": "no"}"#, 400, "bad_request", "enabled"),
        ("buttond/hall/button/door/set", #"{"enabled": false, "face": 1}"#, 422, "invalid_value", "enabled"),
        ("buttond/hall/sheet/scene/set", "choose", 422, "invalid_value", "payload"),
        ("buttond/hall/sheet/scene/set", "{}", 422, "invalid_value", "option"),
    ] as [(String, String, Int, String, String?)])
    func aRefusedCommandSaysWhyAsHTTPWould(topic: String, payload: String, status: Int, code: String, field: String?) throws {
        try Self.withRegistry { fixture in
            do throws(ButtonsError) {
                let action = try Self.parse(topic, payload, in: fixture)
                Issue.record("\(topic) \(payload) was taken: \(Self.command(action))")
            } catch {
                #expect(ErrorStatus.of(error.kind) == status && error.code == code, "\(error)")
                #expect(error.details["field"] == field.map { .string($0) })
                #expect(error.body["error"]?["code"] == .string(code))
            }
        }
    }

    @Test func aPayloadOverTheBodyLimitIsRefused() throws {
        try Self.withRegistry { fixture in
            let payload = String(repeating: " ", count: MQTTCommand.maxPayload) + "press"
            #expect(throws: ButtonsError.invalid("payload", "a command is at most 64 KiB, as an HTTP body is")) {
                try Self.parse("buttond/hall/button/door/set", payload, in: fixture)
            }
        }
    }
}
