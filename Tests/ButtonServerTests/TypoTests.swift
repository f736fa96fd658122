import CurlHTTP
import Foundation
import MicroHTTP
import Testing

/// The API catches a typo rather than answering as if it were not there (SPEC §3): an
/// unknown query parameter, an unknown button in a filter, an unknown batch member, a `t` in
/// seconds, a form body.
@Suite("Typos the API catches")
struct TypoTests {
    @Test(arguments: [
        "/api/v1/events?buton=door", "/api/v1/events/stream?buton=door", "/api/v1/buttons?limt=5",
        "/api/v1/deliveries?handlr=x", "/api/v1/sheets?x=1", "/api/v1/buttons/door?verbose=1",
    ])
    func unknownQueryParameterIsRefused(path: String) throws {
        let server = try TestServer()
        defer { server.stop() }
        try server.createButton(#"{"id": "door"}"#)
        let reply = try server.client.get(path)
        #expect(reply.status == 400, "\(path): \(reply.status) \(reply.text.prefix(200))")
        #expect(reply.errorCode == "unknown_parameter")
        let name = String(path.split(separator: "?")[1].split(separator: "=")[0])
        #expect(reply.json["error"]?["parameter"] == .string(name))
        #expect(reply.json["error"]?["message"]?.string?.contains("'\(name)'") == true)
    }

    @Test func knownParametersStillWork() throws {
        let server = try TestServer()
        defer { server.stop() }
        try server.createButton(#"{"id": "door"}"#)
        try server.post("/api/v1/buttons/door/press")
        #expect(try server.client.get("/api/v1/events?button=door&after=0&limit=5&offset=0").status == 200)
        #expect(try server.client.get("/api/v1/deliveries?limit=5&status=failed").status == 200)
        #expect(try server.client.get("/api/v1/buttons?offset=0&limit=5").status == 200)
        let stream = try server.client.stream("/api/v1/events/stream?button=door&after=0&access_token=x")
        defer { stream.close() }
        #expect(stream.status == 200)
    }

    @Test(arguments: ["/api/v1/events?button=dor", "/api/v1/events/stream?button=dor", "/api/v1/events?sheet=nope"])
    func unknownButtonInAFilterIs404(path: String) throws {
        let server = try TestServer()
        defer { server.stop() }
        try server.createButton(#"{"id": "door"}"#)
        let reply = try server.client.get(path)
        #expect(reply.status == 404, "\(path): \(reply.status) \(reply.text.prefix(200))")
        #expect(reply.errorCode == "not_found")
    }

    @Test func unknownBatchMemberIsNamed() throws {
        let server = try TestServer()
        defer { server.stop() }
        try server.createButton(#"{"id": "door"}"#)
        let reply = try server.post("/api/v1/input", #"[{"buton": "door", "type": "down"}]"#)
        #expect(reply.status == 400)
        #expect(reply.json["error"]?["field"] == "[0].buton")
        #expect(reply.json["error"]?["index"] == 0)
        #expect(reply.json["error"]?["message"]?.string?.contains("[0].buton") == true)
    }

    static let seconds = Int64(Date().timeIntervalSince1970)

    @Test(arguments: [
        ("/api/v1/buttons/door/down", #"{"t": \#(seconds)}"#), ("/api/v1/buttons/door/press", #"{"t": \#(seconds)}"#),
        ("/api/v1/input", #"[{"button": "door", "type": "down", "t": \#(seconds)}]"#),
        ("/api/v1/sheets/menu/open", #"{"t": \#(seconds)}"#),
    ])
    func tInSecondsIsRefusedWithTheHint(path: String, body: String) throws {
        let server = try TestServer()
        defer { server.stop() }
        try server.createButton(#"{"id": "door"}"#)
        try server.post("/api/v1/sheets", #"{"id": "menu", "title": "Menu", "options": [{"id": "a", "label": "A"}]}"#)
        for used in [false, true] {  // fresh, then after a press now (which was a bare 409)
            let reply = try server.post(path, body)
            #expect(reply.status == 422, "\(path) used=\(used): \(reply.status) \(reply.text.prefix(200))")
            #expect(reply.errorCode == "t_not_milliseconds")
            #expect(reply.json["error"]?["message"]?.string?.contains("date +%s%3N") == true)
            try server.post("/api/v1/buttons/door/press")
        }
    }

    @Test func formBodySaysToSendJSON() throws {
        let server = try TestServer()
        defer { server.stop() }
        try server.createButton(#"{"id": "door"}"#)
        let reply = try server.client.request(
            "POST", "/api/v1/buttons/door/press", body: Array("holdMs=100".utf8),
            headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(reply.status == 415)
        let message = reply.json["error"]?["message"]?.string ?? ""
        #expect(message.contains("send JSON"), "\(message)")
        #expect(message.contains(#"-d '{"holdMs": 100}'"#), "\(message)")
    }
}
