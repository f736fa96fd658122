import Foundation
import TestSupport
import MicroHTTP
import Testing

@Suite("Webhook handlers with a real sink")
struct WebhookTests {
    static func server() throws -> TestServer {
        try TestServer { $0.retryScale = 0.01 }
    }

    /// Creates a button and a webhook handler to `path`; returns the handler id.
    @discardableResult
    static func hook(_ server: TestServer, _ sink: Sink, path: String, on: String = #"["tap"]"#, extra: String = "", button: String = "b") throws -> String {
        if try server.client.get("/api/v1/buttons/\(button)").status == 404 {
            try server.createButton("{\"id\": \"\(button)\", \"maxTaps\": 1}")
        }
        let reply = try server.post(
            "/api/v1/buttons/\(button)/handlers", "{\"on\": \(on), \"webhook\": {\"url\": \"\(sink.url(path))\"\(extra)}}")
        #expect(reply.status == 201, "\(reply.text)")
        if let secret = reply.json["secret"]?.string { try sink.setSecret(secret) }
        return reply.json["id"]?.string ?? ""
    }

    static func deliveries(_ server: TestServer, _ handler: String) throws -> [JSONValue] {
        try server.client.get("/api/v1/deliveries?handler=\(handler)").json["deliveries"]?.array ?? []
    }

    @Test func tapIsDeliveredSignedAndByteIdentical() throws {
        let server = try Self.server()
        let sink = try Sink()
        let created = try server.post(
            "/api/v1/buttons", #"{"id": "b", "maxTaps": 1}"#)
        #expect(created.status == 201)
        let reply = try server.post(
            "/api/v1/buttons/b/handlers", "{\"on\": [\"tap\"], \"webhook\": {\"url\": \"\(sink.url("/ok"))\", \"headers\": {\"X-Room\": \"hall\"}}}")
        #expect(reply.status == 201)
        let secret = try #require(reply.json["secret"]?.string)
        #expect(secret.hasPrefix("whsec_"))
        try sink.setSecret(secret)
        let hid = try #require(reply.json["id"]?.string)
        // The secret is shown once only.
        #expect(try server.client.get("/api/v1/handlers/\(hid)").json["secret"] == nil)
        #expect(try !server.client.get("/api/v1/buttons/b/handlers").text.contains("whsec_"))

        let press = try server.post("/api/v1/buttons/b/press")
        let tap = try #require(press.json["events"]?.array.first { $0["type"] == "tap" })
        let got = sink.wait { $0.count == 1 }
        let request = try #require(got.first)
        #expect(request.verified == true)
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["user-agent"]?.hasPrefix("buttond/") == true)
        #expect(request.headers["x-room"] == "hall")
        #expect(request.headers["webhook-id"]?.hasPrefix("dlv_") == true)
        #expect(Int64(request.headers["webhook-timestamp"] ?? "").map { abs($0 - Int64(Date().timeIntervalSince1970)) < 60 } == true)
        #expect(try JSONParser.parse(request.body) == tap)

        let log = try eventually({ try Self.deliveries(server, hid) }, until: { $0.first?["status"] == "ok" })
        #expect(log.count == 1)
        #expect(log.first?["id"]?.string == request.headers["webhook-id"])
        let one = try server.client.get("/api/v1/deliveries/\(log.first!["id"]!.string!)")
        #expect(one.json["attempts"]?.array.count == 1)
        #expect(one.json["attempts"]?.array.first?["outcome"] == "ok")
        #expect(one.json["attempts"]?.array.first?["statusCode"] == 200)
        #expect(one.json["attempts"]?.array.first?["output"] == #"{"received": true}"#)
    }

    @Test func failingTwiceThenSucceedingTakesThreeAttemptsWithTheSameBody() throws {
        let server = try Self.server()
        let sink = try Sink()
        let hid = try Self.hook(server, sink, path: "/fail-twice")
        try server.post("/api/v1/buttons/b/press")
        let got = sink.wait { $0.count >= 3 }
        #expect(got.count == 3)
        #expect(Set(got.map(\.body)).count == 1)
        #expect(Set(got.map { $0.headers["webhook-id"] ?? "" }).count == 1)
        #expect(got.allSatisfy { $0.verified == true })
        let log = try eventually({ try Self.deliveries(server, hid) }, until: { $0.first?["status"] == "ok" })
        let detail = try server.client.get("/api/v1/deliveries/\(log.first!["id"]!.string!)").json
        #expect(detail["attempts"]?.array.map { $0["outcome"]!.string! } == ["http_status", "http_status", "ok"])
        #expect(detail["attempts"]?.array.map { $0["statusCode"]!.int! } == [500, 500, 200])
    }

    @Test func goneDisablesTheHandler() throws {
        let server = try Self.server()
        let sink = try Sink()
        let hid = try Self.hook(server, sink, path: "/gone")
        try server.post("/api/v1/buttons/b/press")
        let log = try eventually({ try Self.deliveries(server, hid) }, until: { $0.first?["status"] == "failed" })
        #expect(log.first?["status"] == "failed")
        // The attempt's outcome reaches the handler's health on the dispatcher's thread, just
        // after the log shows it (a loaded host showed the one before the other).
        let handler = try eventually(seconds: 5, { try server.client.get("/api/v1/handlers/\(hid)").json }, until: { $0["enabled"] == false })
        #expect(handler["enabled"] == false)
        // Pressed again: a disabled handler gets no delivery, so nothing is left to send.
        #expect(try server.post("/api/v1/buttons/b/press").status == 200)
        #expect(try Self.deliveries(server, hid).count == 1)
        #expect(try DeliveryLogRouteTests.outboxDepth(server) == 0)
        #expect(sink.received.count == 1)
    }

    @Test func hangingSinkTimesOutAndRedirectIsNotFollowed() throws {
        let server = try Self.server()
        let sink = try Sink()
        let slow = try Self.hook(server, sink, path: "/hang", extra: #", "timeoutMs": 1000, "maxAttempts": 1"#)
        let moved = try Self.hook(server, sink, path: "/redirect", extra: #", "maxAttempts": 1"#)
        try server.post("/api/v1/buttons/b/press")
        let hung = try eventually({ try Self.deliveries(server, slow) }, until: { $0.first?["status"] == "failed" })
        let attempt = try server.client.get("/api/v1/deliveries/\(hung.first!["id"]!.string!)").json["attempts"]?.array.first
        #expect(attempt?["outcome"] == "timeout")
        #expect((attempt?["durationMs"]?.int ?? 0) >= 900)
        let redirected = try eventually({ try Self.deliveries(server, moved) }, until: { $0.first?["status"] == "failed" })
        let r = try server.client.get("/api/v1/deliveries/\(redirected.first!["id"]!.string!)").json["attempts"]?.array.first
        #expect(r?["outcome"] == "http_status")
        #expect(r?["statusCode"] == 302)
        #expect(!sink.received.contains { $0.path == "/ok" })
    }

    @Test func retryAfterIsHonoured() throws {
        // Retries run at 1/100 of real time here: the schedule's first retry comes after
        // ~10 ms, Retry-After: 60 after ~600 ms. The second request must wait for the latter.
        let server = try Self.server()
        let sink = try Sink()
        let hid = try Self.hook(server, sink, path: "/busy/60")
        try server.post("/api/v1/buttons/b/press")
        let log = try eventually({ try Self.deliveries(server, hid) }, until: { $0.first?["status"] == "ok" })
        #expect(log.first?["attempts"] == 2)
        let arrivals = sink.received(path: "/busy/60").map(\.at)
        try #require(arrivals.count == 2)
        #expect(arrivals[1] - arrivals[0] >= 0.55, "the retry came \(arrivals[1] - arrivals[0]) s after the 503")
    }

    @Test func twoHundredTapsArriveInOrder() throws {
        let server = try Self.server()
        let sink = try Sink()
        try Self.hook(server, sink, path: "/ok")
        var seqs: [Int64] = []
        for i in 0..<200 {
            let reply = try server.post("/api/v1/buttons/b/press", "{\"t\": \(1_700_000_000_000 + i * 1000)}")
            if let seq = reply.json["events"]?.array.first(where: { $0["type"] == "tap" })?["seq"]?.int { seqs.append(seq) }
        }
        let got = sink.wait(seconds: 60) { $0.count >= 200 }
        #expect(got.count == 200)
        let delivered = got.compactMap { (try? JSONParser.parse($0.body))?["seq"]?.int }
        #expect(delivered == seqs)
    }

    static let refused: [(String, String)] = [
        (#"{"on": ["tap"], "webhook": {"url": "ftp://127.0.0.1/x"}}"#, "webhook.url"),
        (#"{"on": ["tap"], "webhook": {"url": "http://user:pw@127.0.0.1/x"}}"#, "webhook.url"),
        (#"{"on": ["tap"], "webhook": {"url": "http://169.254.169.254/latest/meta-data"}}"#, "webhook.url"),
        (#"{"on": ["tap"], "webhook": {"url": "http://2852039166/latest/meta-data"}}"#, "webhook.url"),
        (#"{"on": ["tap"], "webhook": {"url": "http://[fe80::1]:8080/x"}}"#, "webhook.url"),
        (#"{"on": ["tap"], "webhook": {"url": "http://[::ffff:169.254.169.254]/x"}}"#, "webhook.url"),
        (#"{"on": ["tap"], "webhook": {"url": "http://224.0.0.251/x"}}"#, "webhook.url"),
        (#"{"on": ["tap"], "webhook": {"url": "http://[ff02::1]/x"}}"#, "webhook.url"),
        (#"{"on": ["tap"], "webhook": {"url": "http://0.0.0.0:8080/x"}}"#, "webhook.url"),
        (#"{"on": ["tap"], "webhook": {"url": "http://[::]:8080/x"}}"#, "webhook.url"),
        (#"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1/\#(String(repeating: "a", count: 2100))"}}"#, "webhook.url"),
        (#"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1/", "headers": {"Host": "x"}}}"#, "webhook.headers.Host"),
        (#"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1/", "headers": {"webhook-id": "x"}}}"#, "webhook.headers.webhook-id"),
        (#"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1/", "headers": {"Transfer-Encoding": "x"}}}"#, "webhook.headers.Transfer-Encoding"),
        (#"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1/", "headers": {"X-A": "a\r\nX-Evil: 1"}}}"#, "webhook.headers.X-A"),
        (#"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1/", "timeoutMs": 31000}}"#, "webhook.timeoutMs"),
        (#"{"on": ["tapp"], "webhook": {"url": "http://127.0.0.1/"}}"#, "on[0]"),
        (#"{"on": ["select"], "webhook": {"url": "http://127.0.0.1/"}}"#, "on[0]"),
        (#"{"webhook": {"url": "http://127.0.0.1/"}}"#, "on"),
        (#"{"on": ["tap"]}"#, "webhook"),
        (#"{"on": ["tap"], "script": {"name": "x.sh"}}"#, "script"),
    ]

    /// The LAN and this machine are where home automation lives: allowed.
    @Test(arguments: ["http://192.168.1.10/x", "http://10.0.0.5:8123/api", "http://[::1]:9/x", "http://homeassistant.local:8123/api"])
    func localDestinationsAreAllowed(url: String) throws {
        let server = try Self.server()
        try server.createButton(#"{"id": "b"}"#)
        let reply = try server.post("/api/v1/buttons/b/handlers", "{\"on\": [\"tap\"], \"webhook\": {\"url\": \"\(url)\"}}")
        #expect(reply.status == 201, "\(reply.text)")
    }

    @Test(arguments: refused)
    func registrationChecks(body: String, field: String) throws {
        let server = try Self.server()
        try server.createButton(#"{"id": "b"}"#)
        let reply = try server.post("/api/v1/buttons/b/handlers", body)
        #expect(reply.status == 422, "\(reply.text)")
        #expect(reply.json["error"]?["field"] == .string(field))
        if field == "script" { #expect(reply.text.contains("--scripts-dir")) }
    }

    /// "Delivers a synthetic event now" (SPEC §3): not after a delivery of the same handler
    /// that waits an hour for its retry (the receiver said Retry-After: 3600).
    @Test func aTestDeliveryGoesBeforeOneWaitingForItsRetry() throws {
        let server = try TestServer()
        let sink = try Sink()
        let hid = try Self.hook(server, sink, path: "/busy/3600")
        try server.post("/api/v1/buttons/b/press")
        let waiting = sink.wait { $0.count == 1 }
        #expect(try JSONParser.parse(try #require(waiting.first).body)["seq"] != 0)
        let test = try server.post("/api/v1/handlers/\(hid)/test")
        #expect(test.status == 202)
        #expect(test.json["waitingFor"] == nil, "\(test.text)")
        let got = sink.wait(seconds: 10) { $0.count == 2 }
        #expect(got.count == 2)
        #expect(try got.last.map { try JSONParser.parse($0.body)["seq"] } == 0)
    }

    @Test func testRedeliverRotateAndDeleteWithButton() throws {
        let server = try Self.server()
        let sink = try Sink()
        let hid = try Self.hook(server, sink, path: "/ok")
        let test = try server.post("/api/v1/handlers/\(hid)/test")
        #expect(test.status == 202)
        let got = sink.wait { $0.count == 1 }
        let synthetic = try JSONParser.parse(try #require(got.first).body)
        #expect(synthetic["seq"] == 0)
        #expect(synthetic["type"] == "tap")
        #expect(synthetic["data"] == ["tapCount": 1], "a receiver of taps reads tapCount")
        #expect(synthetic["id"]?.string?.hasPrefix("evt_test_") == true)
        let did = try #require(test.json["id"]?.string)
        _ = try eventually({ try server.client.get("/api/v1/deliveries/\(did)").json }, until: { $0["status"] == "ok" })
        #expect(try server.post("/api/v1/deliveries/\(did)/redeliver").status == 202)
        _ = sink.wait { $0.count == 2 }
        let again = try eventually({ try server.client.get("/api/v1/deliveries/\(did)").json }, until: { $0["attempts"]?.array.count == 2 })
        #expect(again["attempts"]?.array.count == 2)

        let rotated = try server.post("/api/v1/handlers/\(hid)/rotate-secret")
        let secret = try #require(rotated.json["secret"]?.string)
        try sink.setSecret(secret)
        try server.post("/api/v1/buttons/b/press")
        let signed = sink.wait { $0.count == 3 }
        #expect(signed.last?.verified == true)

        let moved = try server.client.request("PATCH", "/api/v1/handlers/\(hid)", json: #"{"id": "hdl_other", "enabled": false}"#)
        #expect(moved.status == 422)
        #expect(moved.json["error"]?["field"] == "id")
        #expect(try server.client.request("PATCH", "/api/v1/handlers/\(hid)", json: #"{"button": "c"}"#).json["error"]?["field"] == "button")
        let disabled = try server.client.request("PATCH", "/api/v1/handlers/\(hid)", json: "{\"id\": \"\(hid)\", \"button\": \"b\", \"enabled\": false}")
        #expect(disabled.json["enabled"] == false, "what GET shows may be sent back")
        #expect(try server.client.request("DELETE", "/api/v1/buttons/b").status == 204)
        #expect(try server.client.get("/api/v1/handlers/\(hid)").status == 404)
    }

    @Test func sheetHandlerWithOptionFilter() throws {
        let server = try Self.server()
        let sink = try Sink()
        try server.post("/api/v1/sheets", #"{"id": "s", "options": [{"id": "a"}, {"id": "b"}]}"#)
        let bad = try server.post("/api/v1/sheets/s/handlers", "{\"on\": [\"select\"], \"option\": \"zz\", \"webhook\": {\"url\": \"\(sink.url("/ok"))\"}}")
        #expect(bad.status == 422)
        let ok = try server.post("/api/v1/sheets/s/handlers", "{\"on\": [\"select\"], \"option\": \"b\", \"webhook\": {\"url\": \"\(sink.url("/ok"))\"}}")
        #expect(ok.status == 201)
        #expect(ok.json["sheet"] == "s")
        try server.post("/api/v1/sheets/s/choose", #"{"option": "a"}"#)
        try server.post("/api/v1/sheets/s/choose", #"{"option": "b"}"#)
        let got = sink.wait { $0.count >= 1 }
        // Option a made no delivery at all; with the outbox empty nothing more can come.
        #expect(try Self.deliveries(server, try #require(ok.json["id"]?.string)).count == 1)
        #expect(try eventually({ try DeliveryLogRouteTests.outboxDepth(server) }, until: { $0 == 0 }) == 0)
        #expect(sink.received.count == 1)
        #expect(got.first.map { try? JSONParser.parse($0.body)["data"]?["option"] } == "b")
    }
}

@Suite("Deliveries across a restart")
struct DeliveryRestartTests {
    @Test func pendingDeliveriesAreSentOnceAfterARestart() throws {
        let dir = NSTemporaryDirectory() + "buttond-redeliver-\(UUID().uuidString)"
        let sink = try Sink()
        var seqs: [Int64] = []
        var hid = ""
        do {
            // Nothing listens on port 1: the first attempt fails and the rest wait behind it.
            let server = try TestServer(dataDir: dir) { $0.retryScale = 2 }
            try server.createButton(#"{"id": "b", "maxTaps": 1}"#)
            let created = try server.post("/api/v1/buttons/b/handlers", #"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:1/x"}}"#)
            hid = try #require(created.json["id"]?.string)
            try sink.setSecret(try #require(created.json["secret"]?.string))
            for i in 0..<5 {
                let reply = try server.post("/api/v1/buttons/b/press", "{\"t\": \(1_700_000_000_000 + i * 1000)}")
                seqs += (reply.json["events"]?.array ?? []).filter { $0["type"] == "tap" }.compactMap { $0["seq"]?.int }
            }
            let failedOnce = try eventually(
                { try server.client.get("/api/v1/deliveries?handler=\(hid)").json["deliveries"]?.array ?? [] },
                until: { $0.contains { $0["attempts"] == 1 } })
            #expect(failedOnce.filter { $0["status"] == "pending" }.count == 5)
            server.stop()
        }
        let server = try TestServer(dataDir: dir)
        let moved = try server.client.request("PATCH", "/api/v1/handlers/\(hid)", json: "{\"webhook\": {\"url\": \"\(sink.url("/ok"))\"}}")
        #expect(moved.status == 200)
        let got = sink.wait(seconds: 20) { $0.count >= 5 }
        #expect(try eventually({ try DeliveryLogRouteTests.outboxDepth(server) }, until: { $0 == 0 }) == 0)
        #expect(sink.received.count == 5)
        #expect(got.compactMap { (try? JSONParser.parse($0.body))?["seq"]?.int } == seqs)
        #expect(got.allSatisfy { $0.verified == true })
        let log = try server.client.get("/api/v1/deliveries?handler=\(hid)").json["deliveries"]?.array ?? []
        #expect(log.allSatisfy { $0["status"] == "ok" })
    }

    @Test func anAttemptInFlightAtACrashIsSentAgain() throws {
        let dir = NSTemporaryDirectory() + "buttond-inflight-\(UUID().uuidString)"
        let sink = try Sink()
        let first = try ServerProcess(dataDir: dir)
        try first.client.request("POST", "/api/v1/buttons", json: #"{"id": "b", "maxTaps": 1}"#)
        let hook = try first.client.request(
            "POST", "/api/v1/buttons/b/handlers", json: "{\"on\": [\"tap\"], \"webhook\": {\"url\": \"\(sink.url("/hang"))\", \"timeoutMs\": 30000}}")
        #expect(hook.status == 201)
        try first.client.request("POST", "/api/v1/buttons/b/press", json: "{}")
        _ = sink.wait { $0.count == 1 }
        first.stop(SIGKILL)
        let second = try ServerProcess(dataDir: dir)
        // At least once: the attempt that was in flight is made again after the restart.
        let got = sink.wait(seconds: 20) { $0.count >= 2 }
        #expect(got.count == 2)
        #expect(Set(got.map { $0.headers["webhook-id"] ?? "" }).count == 1)
        withExtendedLifetime(second) {}
    }
}
