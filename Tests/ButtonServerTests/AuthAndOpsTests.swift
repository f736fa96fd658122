import Foundation
import Synchronization
import MicroHTTP
import Testing
import CurlHTTP
import TestSupport

@Suite("Auth, metrics, the CLI and shutdown")
struct AuthAndOpsTests {
    @Test func tokensGuardTheAPI() throws {
        let server = try TestServer {
            $0.adminToken = "admin-secret"
            $0.pressToken = "press-secret"
        }
        let anonymous = HTTPClient(port: server.app.port)
        #expect(try anonymous.get("/healthz").status == 200)
        #expect(try anonymous.get("/").status == 200)
        let denied = try anonymous.get("/api/v1/buttons")
        #expect(denied.status == 401)
        #expect(denied.errorCode == "unauthorized")
        #expect(denied.header("www-authenticate") != nil)
        #expect(try anonymous.get("/metrics").status == 401)
        // Nothing about the routes leaks before the token: unknown paths and wrong methods are 401 too.
        #expect(try anonymous.get("/api/v1/nothing").status == 401)
        #expect(try anonymous.request("PUT", "/api/v1/buttons", json: "{}").status == 401)
        #expect(try HTTPClient(port: server.app.port, token: "wrong").get("/api/v1/buttons").status == 401)

        let admin = HTTPClient(port: server.app.port, token: "admin-secret")
        #expect(try admin.request("POST", "/api/v1/buttons", json: #"{"id": "b"}"#).status == 201)
        let press = HTTPClient(port: server.app.port, token: "press-secret")
        #expect(try press.get("/api/v1/buttons").status == 200)
        #expect(try press.request("POST", "/api/v1/buttons/b/press", json: "{}").status == 200)
        #expect(try press.get("/metrics").status == 200)
        let forbidden = try press.request("POST", "/api/v1/buttons", json: #"{"id": "c"}"#)
        #expect(forbidden.status == 403)
        #expect(forbidden.errorCode == "forbidden")
        #expect(try press.request("DELETE", "/api/v1/buttons/b").status == 403)

        // Webhook header values and URL paths and queries may be credentials: the press token
        // sees them redacted (PressViewTests has the whole of it).
        let hook = try admin.request(
            "POST", "/api/v1/buttons/b/handlers",
            json: #"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/x?key=q-456&v=2", "headers": {"X-Key": "k-123"}}}"#)
        #expect(hook.status == 201)
        #expect(try admin.get("/api/v1/buttons/b/handlers").text.contains("k-123"))
        #expect(try admin.get("/api/v1/buttons/b/handlers").text.contains("q-456"))
        for path in ["/api/v1/buttons/b/handlers", "/api/v1/config", "/api/v1/handlers/\(hook.json["id"]!.string!)"] {
            let seen = try press.get(path).text
            #expect(!seen.contains("k-123") && !seen.contains("q-456"), "\(path)")
        }
        #expect(try press.get("/api/v1/buttons/b/handlers").text.contains(#""url":"http://127.0.0.1:9/***""#))

        let stream = try anonymous.stream("/api/v1/events/stream?after=0&access_token=press-secret")
        #expect(stream.status == 200)
        #expect(try stream.nextEvent().id == "1")
        #expect(try anonymous.stream("/api/v1/events/stream?access_token=nope").status == 401)
    }

    @Test func offLoopbackWithoutATokenGeneratesOneOnce() throws {
        let dir = NSTemporaryDirectory() + "buttond-token-\(UUID().uuidString)"
        let first = try ServerProcess(dataDir: dir, arguments: ["--host", "0.0.0.0"])
        let log = first.log
        let token = try #require(log.split(separator: " ").first { $0.hasPrefix("token=") }.map { String($0.dropFirst(6)) })
        #expect(try first.client.get("/api/v1/buttons").status == 401)
        #expect(try HTTPClient(port: first.port, token: token).get("/api/v1/buttons").status == 200)
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/admin-token")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(first.stop() == 0)
        let second = try ServerProcess(dataDir: dir, arguments: ["--host", "0.0.0.0"])
        #expect(!second.log.contains(token))
        #expect(second.log.contains("admin-token"))
        #expect(try HTTPClient(port: second.port, token: token).get("/api/v1/buttons").status == 200)
    }

    @Test func metricsParse() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "m", "maxTaps": 1}"#)
        try server.post("/api/v1/buttons/m/press")
        try server.post("/api/v1/buttons/m/up")
        let text = try server.client.get("/metrics")
        #expect(text.header("content-type")?.hasPrefix("text/plain") == true)
        var samples: [String: Double] = [:]
        for line in text.text.split(separator: "\n") {
            if line.hasPrefix("#") {
                #expect(line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE "))
                continue
            }
            let parts = line.split(separator: " ")
            #expect(parts.count == 2, "\(line)")
            let value = Double(parts[1])
            #expect(value != nil, "\(line)")
            samples[String(parts[0])] = value
        }
        #expect(samples["buttond_control_events_total{type=\"tap\"}"] == 1)
        #expect(samples["buttond_inputs_rejected_total{reason=\"conflict\"}"] == 1)
        #expect(samples["buttond_buttons"] == 1)
        #expect(samples["buttond_outbox_depth"] == 0)
        #expect((samples["buttond_process_start_time_seconds"] ?? 0) > 1_700_000_000)
        #expect(samples.keys.contains { $0.hasPrefix("buttond_http_requests_total{route=\"/api/v1/buttons/{id}/press\",method=\"POST\",status=\"200\"}") })
    }

    @Test func sigtermUnderLoadExitsZeroAndLosesNothing() throws {
        let dir = NSTemporaryDirectory() + "buttond-term-\(UUID().uuidString)"
        let server = try ServerProcess(dataDir: dir)
        for b in 0..<4 { try server.client.request("POST", "/api/v1/buttons", json: "{\"id\": \"t\(b)\"}") }
        let port = server.port
        let stream = try server.client.stream("/api/v1/events/stream")
        let results = Mutex<[Int64]>([])
        let finished = Mutex(0)
        // Many keep-alive clients, so answers are pending (connections suspended) when the
        // signal comes, and new requests keep arriving while the server stops.
        let clients = 16
        for i in 0..<clients {
            Thread.detachNewThread {
                // Keep-alive, as wrk and browsers do: requests keep coming on an open
                // connection after the listener is closed.
                guard let connection = try? RawConnection(port: port, timeoutSeconds: 5) else {
                    finished.withLock { $0 += 1 }
                    return
                }
                let request = Array(
                    "POST /api/v1/buttons/t\(i % 4)/press HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}".utf8)
                while (try? connection.write(request)) != nil, let reply = try? connection.readReply(), reply.status == 200 {
                    let seqs = (reply.json["events"]?.array ?? []).compactMap { $0["seq"]?.int }
                    results.withLock { $0 += seqs }
                }
                finished.withLock { $0 += 1 }
            }
        }
        // SIGTERM only once the load is really running.
        let before = eventually(seconds: 20, { results.withLock { $0.count } }, until: { $0 >= 100 })
        #expect(before >= 100, "the load never ran: \(before) events acknowledged")
        let status = server.stop(SIGTERM, within: 15)
        #expect(status == 0)
        #expect(eventually(seconds: 20, { finished.withLock { $0 } }, until: { $0 == clients }) == clients)
        let acknowledged = results.withLock { $0 }
        #expect(stream.endsWithin(seconds: 5))
        let restarted = try ServerProcess(dataDir: dir)
        let last = try restarted.client.get("/api/v1/events?limit=1").json["events"]?.array.first?["seq"]?.int ?? 0
        #expect(acknowledged.allSatisfy { $0 <= last })
        #expect(acknowledged.count >= 100)
    }
}
