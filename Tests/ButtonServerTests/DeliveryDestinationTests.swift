import ButtonServer
import Foundation
import MicroHTTP
import Testing
import TestSupport
import CurlHTTP

/// The delivery log suite, continued: where a webhook may go, test and redeliver, restart.
extension DeliveryLogRouteTests {
    // MARK: 6. Destinations

    @Test func buttondsOwnAddressIsRefusedAtRegistration() throws {
        let server = try Self.server()
        let sink = try Sink()
        let port = server.app.port
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        for url in [
            "http://127.0.0.1:\(port)/api/v1/buttons/b/press", "http://[::ffff:127.0.0.1]:\(port)/x", "http://2130706433:\(port)/x",
            "http://0x7f.0.0.1:\(port)/x", "http://[::127.0.0.1]:\(port)/", "http://[::7f00:1]:\(port)/x",
        ] {
            let reply = try server.post("/api/v1/buttons/b/handlers", Self.hook(url))
            #expect(reply.status == 422, "\(url): \(reply.text)")
            #expect(Self.error(reply) == "webhook.url")
        }
        // Loopback elsewhere is allowed (home automation on this machine), and cannot be moved onto buttond.
        let hid = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        let moved = try server.client.request(
            "PATCH", "/api/v1/handlers/\(hid)", json: "{\"webhook\": {\"url\": \"http://127.0.0.1:\(port)/api/v1/buttons/b/press\"}}")
        #expect(moved.status == 422, "\(moved.text)")
        #expect(Self.error(moved) == "webhook.url")
    }

    @Test func theBroadcastAddressIsRefusedAtRegistrationLikeMulticast() throws {
        let server = try Self.server()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        for url in [
            "http://255.255.255.255/", "http://255.255.255.255:8080/x", "http://4294967295/", "http://[::ffff:255.255.255.255]/",
            "http://[::255.255.255.255]/", "http://224.0.0.1/",
        ] {
            let reply = try server.post("/api/v1/buttons/b/handlers", Self.hook(url))
            #expect(reply.status == 422, "\(url): \(reply.text)")
            #expect(Self.error(reply) == "webhook.url")
        }
        let reply = try server.post("/api/v1/buttons/b/handlers", Self.hook("http://255.255.255.255/"))
        #expect(reply.text.contains("broadcast"), "\(reply.text)")
        // IPv4-compatible IPv6 is judged as its IPv4: link-local too.
        #expect(try server.post("/api/v1/buttons/b/handlers", Self.hook("http://[::169.254.169.254]/")).status == 422)
        #expect(try server.post("/api/v1/buttons/b/handlers", Self.hook("http://255.255.255.254/")).status == 201)
    }

    @Test func aNameThatResolvesToButtondIsBlockedAtAttemptAndNotRetried() throws {
        let server = try Self.server()
        let port = server.app.port
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        // If this were sent, it would press the button again, and again.
        let created = try server.post("/api/v1/buttons/b/handlers", Self.hook("http://localhost:\(port)/api/v1/buttons/b/press"))
        #expect(created.status == 201, "accepted at registration: a name is checked when resolved. \(created.text)")
        let hid = try #require(created.json["id"]?.string)
        try Self.tap(server)
        let rows = try eventually(seconds: 60, { try Self.list(server, "handler=\(hid)") }, until: { $0.first?["status"] == "blocked" })
        #expect(rows.count == 1)
        #expect(rows.first?["status"] == "blocked")
        #expect(rows.first?["attempts"] == 1)
        let id = try #require(rows.first?["id"]?.string)
        let detail = try Self.detail(server, id).json
        #expect(detail["status"] == "blocked")
        #expect(detail["attempts"]?.array.count == 1)
        #expect(detail["attempts"]?.array.first?["outcome"] == "blocked")
        #expect(try Self.list(server, "status=blocked").map { $0["id"] } == [.string(id)])
        // Nothing is left to send (no retry waits), so the one attempt stays the only one.
        #expect(try Self.outboxDepth(server) == 0)
        #expect(try Self.detail(server, id).json["attempts"]?.array.count == 1, "blocked is final")
        let taps = try server.client.get("/api/v1/events?button=b&limit=1000").json["events"]?.array.filter { $0["type"] == "tap" }
        #expect(taps?.count == 1, "the request never reached buttond")
    }

    @Test func denyPrivateRefusesLiteralsAndBlocksNames() throws {
        let server = try Self.server { $0.webhookDenyPrivate = true }
        let sink = try Sink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        for url in [
            sink.url("/x"), "http://10.0.0.5/x", "http://192.168.1.10:8123/api", "http://172.16.0.1/x", "http://127.1.2.3/x",
            "http://[::1]:\(sink.port)/x", "http://[fc00::1]/x", "http://[::ffff:10.0.0.5]/x",
            "http://[::10.0.0.5]/x", "http://[::127.0.0.1]:\(sink.port)/x",
        ] {
            let reply = try server.post("/api/v1/buttons/b/handlers", Self.hook(url))
            #expect(reply.status == 422, "\(url): \(reply.text)")
            #expect(Self.error(reply) == "webhook.url")
        }
        let hid = try Self.handler(server, sink, "buttons/b", Self.hook("http://localhost:\(sink.port)/x"))
        try Self.tap(server)
        let rows = try eventually(seconds: 60, { try Self.list(server, "handler=\(hid)") }, until: { $0.first?["status"] == "blocked" })
        #expect(rows.first?["status"] == "blocked")
        #expect(rows.first?["attempts"] == 1)
        let detail = try Self.detail(server, try #require(rows.first?["id"]?.string)).json
        #expect(detail["attempts"]?.array.map { $0["outcome"]?.string ?? "" } == ["blocked"])
        #expect(sink.received.isEmpty)
    }

    // MARK: 7. Test and redeliver

    @Test func testDeliveryAndRedeliver() throws {
        let server = try Self.server()
        let sink = try Sink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let hid = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok"), on: #"["long-press", "tap"]"#))
        let test = try server.post("/api/v1/handlers/\(hid)/test")
        #expect(test.status == 202, "\(test.text)")
        let id = try #require(test.json["id"]?.string)
        #expect(Self.key(test.json["id"]) != nil)
        #expect(test.json["handler"]?.string == hid)
        #expect(test.json["status"] == "pending" || test.json["status"] == "in_flight")
        #expect(test.json["attempts"] == 0)
        #expect(test.json["eventSeq"] == 0)
        #expect(test.json["type"] == "long-press")
        #expect(test.json["button"] == "b")
        #expect(test.json["eventId"]?.string?.hasPrefix("evt_test_") == true)
        #expect(test.json["createdAt"]?.int != nil && test.json["nextAttemptAt"]?.int != nil)

        _ = try eventually(seconds: 60, { try Self.detail(server, id).json }, until: { $0["status"] == "ok" })
        #expect(try Self.list(server).map { $0["id"] } == [.string(id)])
        let again = try server.post("/api/v1/deliveries/\(id)/redeliver")
        #expect(again.status == 202, "\(again.text)")
        #expect(again.json["id"]?.string == id)
        let got = sink.wait { $0.count >= 2 }
        #expect(got.count == 2)
        #expect(got.map { $0.headers["webhook-id"] } == [id, id])
        #expect(got.count == 2 && got[0].body == got[1].body)
        #expect(got.allSatisfy { $0.verifiedBy == [hid] })
        let detail = try eventually(
            seconds: 60, { try Self.detail(server, id).json }, until: { $0["status"] == "ok" && $0["attempts"]?.array.count == 2 })
        #expect(detail["attempts"]?.array.map { $0["number"]?.int ?? 0 } == [1, 2])
        #expect(detail["attempts"]?.array.map { $0["outcome"]?.string ?? "" } == ["ok", "ok"])
        #expect(try eventually({ try Self.outboxDepth(server) }, until: { $0 == 0 }) == 0)
        #expect(sink.received.count == 2, "one more attempt, not more")

        for unknown in ["dlv_zzzzzz", "nonsense"] {
            #expect(try server.post("/api/v1/deliveries/\(unknown)/redeliver").status == 404, "\(unknown)")
        }
        #expect(try server.post("/api/v1/handlers/hdl_nosuchhandler/test").status == 404)
    }

    // MARK: 8. Restart

    @Test func aRestartKeepsTheLogAndSendsPendingOnesOnce() throws {
        let dir = NSTemporaryDirectory() + "buttond-delivery-log-\(UUID().uuidString)"
        let sink = try Sink()
        var before: [JSONValue] = []
        var done = ""
        var waiting = ""
        var quiet = ""
        do {
            let server = try TestServer(dataDir: dir) {
                $0.retryScale = 600
                $0.shutdownGraceSeconds = 2
            }
            try Self.button(server, #"{"id": "done", "maxTaps": 1}"#)
            try Self.button(server, #"{"id": "wait", "maxTaps": 1}"#)
            done = try Self.handler(server, sink, "buttons/done", Self.hook(sink.url("/ok")))
            waiting = try Self.handler(server, sink, "buttons/wait", Self.hook(sink.url("/status/500")))
            try Self.button(server, #"{"id": "quiet", "maxTaps": 1}"#)
            quiet = try Self.handler(server, sink, "buttons/quiet", Self.hook(sink.url("/quiet"), top: #", "ordered": false"#))
            for _ in 0..<2 { try Self.tap(server, "done") }
            for _ in 0..<3 { try Self.tap(server, "wait") }
            _ = try eventually(seconds: 60, { try Self.list(server, "handler=\(done)") }, until: { $0.count == 2 && $0.allSatisfy { $0["status"] == "ok" } })
            _ = try eventually(
                seconds: 60, { try Self.list(server, "handler=\(waiting)") },
                until: { $0.count == 3 && $0.last?["attempts"] == 1 && $0.first?["waitingFor"] != nil })
            before = try Self.list(server)
            server.stop()
        }
        try #require(before.count == 5)

        let server = try TestServer(dataDir: dir) {
            $0.retryScale = 0.01
            $0.shutdownGraceSeconds = 2
        }
        let after = try Self.list(server)
        #expect(try server.client.get("/api/v1/handlers/\(quiet)").json["ordered"] == false)
        #expect(try server.client.get("/api/v1/handlers/\(waiting)").json["ordered"] == true)
        #expect(Self.ids(after) == Self.ids(before), "the log survives the restart")
        #expect(after.map { $0["status"] } == before.map { $0["status"] })
        #expect(after.map { $0["attempts"] } == before.map { $0["attempts"] })
        #expect(after.map { $0["eventSeq"] } == before.map { $0["eventSeq"] })
        let doneRow = try #require(after.first { $0["handler"]?.string == done }?["id"]?.string)
        #expect(try Self.detail(server, doneRow).json["attempts"]?.array.map { $0["outcome"]?.string ?? "" } == ["ok"])
        let pending = try Self.list(server, "handler=\(waiting)")
        let head = try #require(pending.last?["id"]?.string)
        #expect(pending.map { $0["waitingFor"]?.string } == [head, head, nil])
        #expect(try Self.outboxDepth(server) == 3)

        // Point it somewhere that answers and let the head go now (its retry was ~10 min away).
        let moved = try server.client.request("PATCH", "/api/v1/handlers/\(waiting)", json: "{\"webhook\": {\"url\": \"\(sink.url("/later"))\"}}")
        #expect(moved.status == 200, "\(moved.text)")
        #expect(try server.post("/api/v1/deliveries/\(head)/redeliver").status == 202)
        _ = sink.wait { $0.filter { $0.path == "/later" }.count >= 3 }
        let settled = try eventually(seconds: 60, { try Self.list(server) }, until: { $0.allSatisfy { $0["status"] == "ok" } })
        #expect(try eventually({ try Self.outboxDepth(server) }, until: { $0 == 0 }) == 0)
        let later = sink.received(path: "/later")
        #expect(later.map { $0.headers["webhook-id"] } == Self.ids(pending).reversed().map { Optional($0) }, "each pending one once, in order")
        #expect(later.allSatisfy { $0.verifiedBy == [waiting] })
        #expect(sink.received(path: "/ok").count == 2, "finished ones are not sent again")
        #expect(Self.ids(settled) == Self.ids(before))
        #expect(try Self.outboxDepth(server) == 0)
    }
}
