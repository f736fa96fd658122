import CurlHTTP
import Foundation
import MicroHTTP
import Testing
import TestSupport

/// A sheet opened by a panel that then went away cancels itself (SPEC §7 "A panel for a live
/// show"): `openTimeoutMs` later the server emits `sheet-cancel` with `reason: "timeout"`, on
/// its own, on every stream.
@Suite("Sheet open timeout")
struct SheetTimeoutTests {
    static func event(_ message: EventMessage) throws -> JSONValue { try JSONParser.parse(Array(message.data.utf8)) }

    /// The next control event on `stream` (registry messages skipped).
    static func nextControlEvent(_ stream: StreamReader) throws -> JSONValue {
        while true {
            let message = try stream.nextEvent()
            if message.event == nil || message.event == "message" { return try event(message) }
        }
    }

    @Test func anOpenSheetIsCancelledByTheServerAfterItsTimeout() throws {
        let server = try TestServer()
        let created = try server.post("/api/v1/sheets", #"{"id": "scene", "openTimeoutMs": 1000, "options": [{"id": "a"}]}"#)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["openTimeoutMs"] == 1000)
        let stream = try server.client.stream("/api/v1/events/stream")
        let started = Date()
        let opened = try server.post("/api/v1/sheets/scene/open")
        let openT = try #require(opened.json["events"]?.array.first?["t"]?.int)
        #expect(try Self.nextControlEvent(stream)["type"] == "sheet-open")

        // Nobody sends anything more: the cancel arrives by itself.
        let cancel = try Self.nextControlEvent(stream)
        let waited = Date().timeIntervalSince(started)
        #expect(cancel["type"] == "sheet-cancel")
        #expect(cancel["sheet"] == "scene")
        #expect(cancel["data"] == ["reason": "timeout"])
        #expect(cancel["t"]?.int == openT + 1000, "at the deadline's t")
        #expect(waited >= 0.95 && waited < 5, "after \(waited) s")
        #expect(try server.client.get("/api/v1/sheets/scene").json["state"]?["open"] == false)
        let history = try server.client.get("/api/v1/events?after=0").json["events"]!.array
        #expect(history.map { $0["type"] } == ["sheet-open", "sheet-cancel"])
        #expect(history.last == cancel, "the same event in the history")
    }

    @Test func aChoiceOrACancelInTimeEndsTheTimeoutAndReopeningRestartsIt() throws {
        let server = try TestServer()
        #expect(try server.post("/api/v1/sheets", #"{"id": "s", "openTimeoutMs": 1000, "options": [{"id": "a"}]}"#).status == 201)
        let stream = try server.client.stream("/api/v1/events/stream")
        try server.post("/api/v1/sheets/s/open")
        #expect(TestServer.types(try server.post("/api/v1/sheets/s/choose", #"{"option": "a"}"#)) == ["select"])
        usleep(600_000)
        try server.post("/api/v1/sheets/s/open")
        usleep(600_000)
        // Opened again 600 ms ago: the first open's deadline (now past) cancels nothing.
        #expect(try server.client.get("/api/v1/sheets/s").json["state"]?["open"] == true)
        var types: [String] = []
        while types.count < 4 { types.append(try Self.nextControlEvent(stream)["type"]?.string ?? "?") }
        #expect(types == ["sheet-open", "select", "sheet-open", "sheet-cancel"])
        let history = try server.client.get("/api/v1/events?after=0").json["events"]!.array
        #expect(history.last?["data"] == ["reason": "timeout"])
        #expect(history.filter { $0["type"] == "sheet-cancel" }.count == 1)
    }

    @Test func zeroNeverTimesOutAndTheDefaultIsAMinute() throws {
        let server = try TestServer()
        let plain = try server.post("/api/v1/sheets", #"{"id": "plain", "options": [{"id": "a"}]}"#)
        #expect(plain.json["openTimeoutMs"] == 60000)
        #expect(try server.post("/api/v1/sheets", #"{"id": "never", "openTimeoutMs": 0, "options": [{"id": "a"}]}"#).status == 201)
        let patched = try server.client.request("PATCH", "/api/v1/sheets/plain", json: #"{"openTimeoutMs": 1000}"#)
        #expect(patched.status == 200 && patched.json["openTimeoutMs"] == 1000, "\(patched.text)")
        try server.post("/api/v1/sheets/never/open")
        try server.post("/api/v1/sheets/plain/open")
        let history = try eventually(
            seconds: 10, { try server.client.get("/api/v1/events?after=0").json["events"]!.array }, until: { $0.count >= 3 })
        #expect(history.map { $0["type"] } == ["sheet-open", "sheet-open", "sheet-cancel"])
        #expect(history.last?["sheet"] == "plain")
        usleep(300_000)
        #expect(try server.client.get("/api/v1/sheets/never").json["state"]?["open"] == true)
        #expect(try server.client.get("/api/v1/config").json["sheets"]?.array.first { $0["id"] == "never" }?["openTimeoutMs"] == 0)
    }

    @Test(arguments: ["1", "999", "3600001", "-1"]) func outOfRangeIsRefusedNamingTheField(_ value: String) throws {
        let server = try TestServer()
        let reply = try server.post("/api/v1/sheets", "{\"id\": \"s\", \"openTimeoutMs\": \(value), \"options\": [{\"id\": \"a\"}]}")
        #expect(reply.status == 422, "\(reply.text)")
        #expect(reply.json["error"]?["field"] == "openTimeoutMs", "\(reply.text)")
        #expect(try server.post("/api/v1/sheets", #"{"id": "s", "openTimeoutMs": "60s", "options": [{"id": "a"}]}"#).status == 400)
    }
}
