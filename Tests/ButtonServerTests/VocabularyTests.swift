import CurlHTTP
import Delivery
import Foundation
import MicroHTTP
import Testing

/// What the panel reads from the server instead of a copy of its own (SPEC §7): the
/// vocabulary, the session's role, and the QR code of a kiosk link.
@Suite("Vocabulary, session and QR routes")
struct VocabularyTests {
    static func strings(_ value: JSONValue?) -> [String] { value?.array.compactMap(\.string) ?? [] }

    @Test func theVocabularyIsTheServersOwn() throws {
        let server = try TestServer()
        let reply = try server.client.get("/api/v1/vocabulary")
        #expect(reply.status == 200)
        let words = reply.json
        #expect(Self.strings(words["placeholders"]) == Placeholders.names)
        #expect(Self.strings(words["placeholders"]).count == 12)
        for name in ["{index}", "{option_label}", "{face_label}", "{by}"] { #expect(Self.strings(words["placeholders"]).contains(name)) }
        #expect(Set(Self.strings(words["numericPlaceholders"])) == Placeholders.numeric)
        #expect(Self.strings(words["handlerKinds"]) == ["webhook", "script", "osc"])
        #expect(Self.strings(words["deliveryKinds"]) == ["webhook", "script", "osc", "mqtt"])
        #expect(Self.strings(words["deliveryStatuses"]).contains("failing"))
        #expect(Self.strings(words["eventTypes"]?["sheet"]) == ["sheet-open", "select", "sheet-cancel"])
        let buttonTypes = Self.strings(words["eventTypes"]?["button"])
        #expect(buttonTypes.first == "touch-down" && buttonTypes.contains("toggle") && !buttonTypes.contains("select"))
        // What the vocabulary lists, a handler takes; what it does not list, a handler refuses.
        try server.createButton(#"{"id": "b"}"#)
        let all = buttonTypes.map { "\"\($0)\"" }.joined(separator: ", ")
        #expect(try server.post("/api/v1/buttons/b/handlers", "{\"on\": [\(all)], \"webhook\": {\"url\": \"http://127.0.0.1:9/x\"}}").status == 201)
        #expect(try server.post("/api/v1/buttons/b/handlers", #"{"on": ["select"], "webhook": {"url": "http://127.0.0.1:9/x"}}"#).status == 422)
    }

    @Test func theSessionSaysWhoTheTokenIs() throws {
        let server = try TestServer { $0.adminToken = "admin-secret"; $0.pressToken = "press-secret" }
        func session(_ token: String?) throws -> HTTPClient.Reply {
            try HTTPClient(port: server.app.port, token: token).get("/api/v1/session")
        }
        #expect(try session("admin-secret").json == ["role": "admin"])
        #expect(try session("press-secret").json == ["role": "press"])
        #expect(try session(nil).status == 401)
        #expect(try session("nope").status == 401)
        let made = try server.post("/api/v1/tokens", #"{"name": "lobby-kiosk", "role": "press", "groups": ["stage", "lobby"]}"#)
        let token = try #require(made.json["token"]?.string)
        #expect(try session(token).json == ["role": "press", "name": "lobby-kiosk", "groups": ["lobby", "stage"]])
    }

    @Test func aQRCodeIsAnSVGAndBadTextIsAClearError() throws {
        let server = try TestServer()
        let link = "http://127.0.0.1:8080/?kiosk#token=bdt_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"
        let reply = try server.post("/api/v1/qr", "{\"text\": \"\(link)\"}")
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "image/svg+xml")
        #expect(reply.text.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(reply.text.contains("<path d=\"M"))
        for (body, status, field) in [
            (#"{"text": ""}"#, 422, "text"), (#"{}"#, 422, "text"), (#"{"text": 5}"#, 400, "text"),
            ("{\"text\": \"\(String(repeating: "z", count: 2049))\"}", 422, "text"), (#"{"text": "a", "size": 3}"#, 422, "size"),
        ] {
            let refused = try server.post("/api/v1/qr", body)
            #expect(refused.status == status, "\(body.prefix(40)): \(refused.text)")
            #expect(refused.json["error"]?["field"]?.string == field, "\(refused.text)")
        }
        // Long enough for no QR code at level M, short enough for the field: still a 422.
        let tooBig = try server.post("/api/v1/qr", "{\"text\": \"\(String(repeating: "é", count: 1500))\"}")
        #expect(tooBig.status == 422 && tooBig.json["error"]?["field"] == "text", "\(tooBig.text)")
        #expect(try server.client.get("/api/v1/qr").status == 405)
    }
}
