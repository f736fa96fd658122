import Foundation
import MicroHTTP
import Testing
import TestSupport
import CurlHTTP

/// What the panel builds on (SPEC §3, §7): look fields, icons, registry changes on the stream,
/// handler health on keys, and readable delivery rows.
@Suite("Looks, registry events and handler health")
struct PanelSupportTests {
    /// The next `event: registry` message on the stream (control events are skipped).
    static func nextRegistryEvent(_ stream: StreamReader) throws -> JSONValue {
        while true {
            let message = try stream.nextEvent()
            if message.event == "registry" { return try JSONParser.parse(Array(message.data.utf8)) }
        }
    }

    @Test func aStatusChangeReachesAnOpenStreamAsARegistryEvent() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "door"}"#)
        let stream = try server.client.stream("/api/v1/events/stream")
        let patch = try server.client.request("PATCH", "/api/v1/buttons/door", json: ##"{"status": "ON AIR", "color": "#d00000"}"##)
        #expect(patch.status == 200)
        #expect(patch.json["status"] == "ON AIR")
        let put = try Self.nextRegistryEvent(stream)
        #expect(put["op"] == "put")
        #expect(put["kind"] == "button")
        #expect(put["id"] == "door")
        #expect(put["button"]?["status"] == "ON AIR")
        #expect(put["button"]?["color"] == "#d00000")
        #expect(put["button"]?["state"]?["face"] == 0)
        // A control event on the same stream still carries its id; registry events carry none.
        _ = try server.post("/api/v1/buttons/door/down")
        let control = try stream.nextEvent()
        #expect(control.id == "1" && control.event == nil)
        #expect(try server.client.request("PATCH", "/api/v1/buttons/door", json: #"{"status": null}"#).json["status"] == nil)
        #expect(try Self.nextRegistryEvent(stream)["button"]?["status"] == nil)
        #expect(try server.client.request("DELETE", "/api/v1/buttons/door").status == 204)
        let delete = try Self.nextRegistryEvent(stream)
        #expect(delete["op"] == "delete" && delete["id"] == "door")
        try server.client.request("POST", "/api/v1/sheets", json: #"{"id": "menu", "options": [{"id": "a", "label": "A"}]}"#)
        #expect(try Self.nextRegistryEvent(stream)["sheet"]?["options"]?.array.count == 1)
    }

    @Test(arguments: [
        (#"{"color": "red"}"#, "color"), (##"{"color": "#12345"}"##, "color"), (#"{"size": "3x3"}"#, "size"),
        (#"{"status": "123456789012345678901234567890123"}"#, "status"), (#"{"status": "a\u0007b"}"#, "status"),
        (#"{"icon": "no-such-icon"}"#, "icon"), (#"{"icon": "Door"}"#, "icon"),
    ])
    func badLooksAreRefusedNamingTheField(body: String, field: String) throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "door"}"#)
        let reply = try server.client.request("PATCH", "/api/v1/buttons/door", json: body)
        #expect(reply.status == 422, "\(reply.text)")
        #expect(reply.json["error"]?["field"] == .string(field))
    }

    @Test func looksRoundTripAndTheIconSetIsListed() throws {
        let server = try TestServer()
        let icons = try server.client.get("/api/v1/icons").json["icons"]?.array.compactMap(\.string) ?? []
        let files = try FileManager.default.contentsOfDirectory(atPath: TestServer.repositoryRoot + "/public/icons")
            .filter { $0.hasSuffix(".svg") }.map { String($0.dropLast(4)) }
        #expect(icons == files.sorted())
        try #require(!icons.isEmpty, "public/icons holds the panel's icon set")
        let created = try server.createButton(##"{"id": "door", "icon": "\##(icons[0])", "size": "2x1", "color": "#00aa55"}"##)
        #expect(created.status == 201)
        let button = try server.client.get("/api/v1/buttons/door").json
        #expect(button["icon"] == .string(icons[0]))
        #expect(button["size"] == "2x1")
        #expect(button["color"] == "#00aa55")
        // Exported and imported with the rest of the registry.
        let config = try server.client.get("/api/v1/config").json
        #expect(config["buttons"]?.array.first?["size"] == "2x1")
    }

    @Test func aFailingWebhookMarksItsKeyAndA410DisablesIt() throws {
        let server = try TestServer { $0.retryScale = 0.01 }
        let sink = try Sink()
        try server.createButton(#"{"id": "door", "maxTaps": 1}"#)
        try server.createButton(#"{"id": "lamp", "maxTaps": 1}"#)
        let failing = try server.post(
            "/api/v1/buttons/door/handlers", #"{"on": ["tap"], "webhook": {"url": "\#(sink.url("/fail-twice"))", "maxAttempts": 3}}"#)
        let failingID = try #require(failing.json["id"]?.string)
        let stream = try server.client.stream("/api/v1/events/stream?button=door")
        #expect(try server.post("/api/v1/buttons/door/press").status == 200)
        // The first attempt fails: the key says so, naming the handler and why.
        var put = try Self.nextRegistryEvent(stream)
        #expect(put["button"]?["health"]?["state"] == "failing")
        #expect(put["button"]?["health"]?["handler"] == .string(failingID))
        #expect(put["button"]?["health"]?["reason"]?.string?.contains("500") == true)
        #expect(try server.client.get("/api/v1/handlers/\(failingID)").json["health"]?["state"] == "failing")
        // The third attempt succeeds: healthy again.
        put = try Self.nextRegistryEvent(stream)
        #expect(put["button"]?["health"] == nil)
        #expect(try server.client.get("/api/v1/buttons/door").json["health"] == nil)

        let gone = try server.post("/api/v1/buttons/lamp/handlers", #"{"on": ["tap"], "webhook": {"url": "\#(sink.url("/gone"))"}}"#)
        let goneID = try #require(gone.json["id"]?.string)
        #expect(try server.post("/api/v1/buttons/lamp/press").status == 200)
        let lamp = try eventually({ try server.client.get("/api/v1/buttons/lamp").json }, until: { $0["health"]?["state"] == "disabled" })
        #expect(lamp["health"]?["reason"]?.string?.contains("410") == true)
        #expect(lamp["health"]?["handler"] == .string(goneID))
        let handler = try server.client.get("/api/v1/handlers/\(goneID)").json
        #expect(handler["enabled"] == false && handler["health"]?["state"] == "disabled")
        // Enabled again by hand: healthy; disabled by hand: says so.
        _ = try server.client.request("PATCH", "/api/v1/handlers/\(goneID)", json: #"{"enabled": true}"#)
        #expect(try server.client.get("/api/v1/buttons/lamp").json["health"] == nil)
        _ = try server.client.request("PATCH", "/api/v1/handlers/\(goneID)", json: #"{"enabled": false}"#)
        #expect(try server.client.get("/api/v1/buttons/lamp").json["health"]?["reason"] == "disabled by hand")
    }

    @Test func deliveryRowsSayWhereTheyWentAndHowItEnded() throws {
        let server = try TestServer { $0.retryScale = 0.01 }
        let sink = try Sink()
        try server.createButton(#"{"id": "door", "maxTaps": 1}"#)
        try server.post("/api/v1/buttons/door/handlers", #"{"on": ["tap"], "webhook": {"url": "\#(sink.url("/status/501?key=s3cret"))", "method": "PUT"}}"#)
        #expect(try server.post("/api/v1/buttons/door/press").status == 200)
        // The sink answers this path 501, and the row says so.
        let row = try eventually(
            { try server.client.get("/api/v1/deliveries").json["deliveries"]?.array.first ?? .null },
            until: { $0["outcome"] != nil })
        #expect(row["outcome"] == "http_status")
        #expect(row["statusCode"] == 501)
        #expect(row["target"] == .string("PUT " + sink.url("/status/501?key=s3cret")))
        #expect(row["button"] == "door" && row["type"] == "tap")
    }
}
