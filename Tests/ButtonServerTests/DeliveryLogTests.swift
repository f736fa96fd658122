import ButtonServer
import Foundation
import MicroHTTP
import Testing
import CurlHTTP

/// A webhook receiver (Python, a real process on loopback) that records each request whole:
/// method, request target (path and query), headers, body bytes, and which handlers' secrets
/// verify its Standard Webhooks signature (computed with Python's hmac, not buttond's code).
///
/// Paths choose the answer: `/fail-first…` is 500 the first time that exact path is hit, 200
/// after; `/status/NNN` is always NNN; `/hold/NAME` waits until `release(NAME)` (at most
/// 120 s), then 200; anything else 200.
private final class RecordingSink: @unchecked Sendable {  // fields are set once in init
    let process = Process()
    let port: Int
    let dir: String

    struct Request {
        var method: String
        /// Path and query, as sent.
        var target: String
        var path: String
        var n: Int
        var headers: [String: String]
        var body: [UInt8]
        /// Handler ids whose secret verifies the signature.
        var verifiedBy: [String]
        var json: JSONValue? { try? JSONParser.parse(body) }
    }

    static let script = #"""
        import base64, hashlib, hmac, json, os, sys, threading, time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        root = sys.argv[1]
        log_path = os.path.join(root, "log.jsonl")
        secrets_dir = os.path.join(root, "secrets")
        counts = {}
        lock = threading.Lock()


        def verified_by(headers, body):
            names = []
            if not os.path.isdir(secrets_dir):
                return names
            for name in sorted(os.listdir(secrets_dir)):
                secret = open(os.path.join(secrets_dir, name)).read().strip()
                if not secret.startswith("whsec_"):
                    continue
                key = base64.b64decode(secret[len("whsec_"):])
                signed = f"{headers.get('webhook-id')}.{headers.get('webhook-timestamp')}.".encode() + body
                expected = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
                if any(hmac.compare_digest(expected, s) for s in headers.get("webhook-signature", "").split(" ")):
                    names.append(name)
            return names


        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def handle_any(self):
                length = int(self.headers.get("content-length", "0") or "0")
                body = self.rfile.read(length) if length > 0 else b""
                path = self.path.split("?")[0]
                headers = {k.lower(): v for k, v in self.headers.items()}
                with lock:
                    counts[path] = counts.get(path, 0) + 1
                    n = counts[path]
                    with open(log_path, "a") as f:
                        f.write(json.dumps({"method": self.command, "target": self.path, "path": path, "n": n,
                                            "headers": headers, "body": base64.b64encode(body).decode(),
                                            "verifiedBy": verified_by(headers, body)}) + "\n")
                status = 200
                if path.startswith("/fail-first") and n == 1:
                    status = 500
                elif path.startswith("/status/"):
                    status = int(path.split("/")[2])
                elif path.startswith("/hold/"):
                    release = os.path.join(root, "release-" + path.split("/")[2])
                    deadline = time.time() + 120
                    while not os.path.exists(release) and time.time() < deadline:
                        time.sleep(0.02)
                reply = b'{"received": true}'
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any


        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    init() throws {
        dir = NSTemporaryDirectory() + "delivery-sink-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/secrets", withIntermediateDirectories: true)
        try Self.script.write(toFile: dir + "/sink.py", atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: dir + "/log.jsonl", contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", dir + "/sink.py", dir]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HTTPClient.Failure(description: "the recording sink did not start")
        }
        self.port = port
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Signatures made with this handler's secret are reported as verified by `handler`.
    func trust(_ handler: String, secret: String) throws {
        try secret.write(toFile: dir + "/secrets/" + handler, atomically: true, encoding: .utf8)
    }

    /// Lets requests waiting on `/hold/NAME` be answered (200).
    func release(_ name: String) {
        _ = FileManager.default.createFile(atPath: dir + "/release-" + name, contents: Data())
    }

    var received: [Request] {
        guard let text = try? String(contentsOfFile: dir + "/log.jsonl", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let json = try? JSONParser.parse(Array(line.utf8)), let method = json["method"]?.string,
                let target = json["target"]?.string, let path = json["path"]?.string, let n = json["n"]?.int,
                let body = json["body"]?.string, case .object(let headers)? = json["headers"]
            else { return nil }
            return Request(
                method: method, target: target, path: path, n: Int(n),
                headers: headers.compactMapValues { $0.string }, body: [UInt8](Data(base64Encoded: body) ?? Data()),
                verifiedBy: (json["verifiedBy"]?.array ?? []).compactMap { $0.string })
        }
    }

    func received(path: String) -> [Request] { received.filter { $0.path == path } }

    /// Waits (bounded) until `condition` holds for what was received.
    func wait(seconds: Double = 60, until condition: ([Request]) -> Bool) -> [Request] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let now = received
            if condition(now) { return now }
            usleep(20_000)
        }
        return received
    }

    /// Kills the process: held requests end with a broken connection.
    func stop() { kill(process.processIdentifier, SIGKILL) }

    deinit { kill(process.processIdentifier, SIGKILL) }
}

private final class StopFlag: @unchecked Sendable {  // `value` is guarded by `lock`
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
    private var count = 0
    /// Presses answered so far.
    var presses: Int { lock.withLock { count } }
    func pressed() { lock.withLock { count += 1 } }
}

@Suite("Delivery log, ordering, request shaping and destinations")
struct DeliveryLogTests {
    // MARK: Helpers

    static func server(_ configure: (inout ServeOptions) -> Void = { _ in }) throws -> TestServer {
        try TestServer {
            $0.retryScale = 0.01
            $0.shutdownGraceSeconds = 2
            configure(&$0)
        }
    }

    static func button(_ server: TestServer, _ json: String) throws {
        let reply = try server.createButton(json)
        #expect(reply.status == 201, "\(reply.text)")
    }

    /// Adds a handler (`owner` is `buttons/ID` or `sheets/ID`); its secret is trusted by the sink.
    @discardableResult
    fileprivate static func handler(_ server: TestServer, _ sink: RecordingSink, _ owner: String, _ json: String) throws -> String {
        let reply = try server.post("/api/v1/\(owner)/handlers", json)
        #expect(reply.status == 201, "\(reply.text)")
        let id = try #require(reply.json["id"]?.string)
        if let secret = reply.json["secret"]?.string { try sink.trust(id, secret: secret) }
        return id
    }

    /// A webhook handler's JSON: `{"on": ON, "webhook": {"url": URL, EXTRA}, TOP}`.
    static func hook(_ url: String, on: String = #"["tap"]"#, webhook extra: String = "", top: String = "") -> String {
        "{\"on\": \(on), \"webhook\": {\"url\": \"\(url)\"\(extra)}\(top)}"
    }

    /// Presses a button; returns its tap event.
    @discardableResult
    static func tap(_ server: TestServer, _ button: String = "b") throws -> JSONValue {
        let reply = try server.post("/api/v1/buttons/\(button)/press")
        #expect(reply.status == 200, "\(reply.text)")
        return try #require(reply.json["events"]?.array.first { $0["type"] == "tap" })
    }

    static func list(_ server: TestServer, _ query: String = "") throws -> [JSONValue] {
        let reply = try server.client.get("/api/v1/deliveries" + (query.isEmpty ? "" : "?" + query))
        #expect(reply.status == 200, "\(reply.text)")
        return reply.json["deliveries"]?.array ?? []
    }

    static func detail(_ server: TestServer, _ id: String) throws -> HTTPClient.Reply {
        try server.client.get("/api/v1/deliveries/\(id)")
    }

    static func metric(_ server: TestServer, _ name: String) throws -> Int? {
        let text = try server.client.get("/metrics").text
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    static func outboxDepth(_ server: TestServer) throws -> Int? { try metric(server, "buttond_outbox_depth") }

    static func attemptsEnded(_ server: TestServer, outcome: String) throws -> Int {
        try metric(server, "buttond_deliveries_total{kind=\"webhook\",outcome=\"\(outcome)\"}") ?? 0
    }

    /// The number inside a `dlv_…` id.
    static func key(_ id: JSONValue?) -> Int64? {
        guard let text = id?.string, text.hasPrefix("dlv_") else { return nil }
        return Int64(text.dropFirst(4), radix: 36)
    }

    static func ids(_ rows: [JSONValue]) -> [String] { rows.compactMap { $0["id"]?.string } }

    static func error(_ reply: HTTPClient.Reply) -> String { reply.json["error"]?["field"]?.string ?? "" }

    // MARK: 1. The log: ids, fields, order, paging, filters

    @Test func logListsNewestFirstWithEveryField() throws {
        let server = try Self.server()
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let first = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok/1")))
        let second = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok/2")))
        var taps: [JSONValue] = []
        for _ in 0..<3 { taps.append(try Self.tap(server)) }

        let rows = try eventually(seconds: 60, { try Self.list(server) }, until: { $0.count == 6 && $0.allSatisfy { $0["status"] == "ok" } })
        try #require(rows.count == 6)
        let keys = rows.compactMap { Self.key($0["id"]) }
        #expect(keys.count == 6)
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 > $1 }, "newest first: \(Self.ids(rows))")
        for row in rows {
            let id = try #require(row["id"]?.string)
            #expect(id.hasPrefix("dlv_") && id.dropFirst(4).allSatisfy { ("0"..."9").contains($0) || ("a"..."z").contains($0) }, "\(id)")
            #expect(row["handler"]?.string == first || row["handler"]?.string == second)
            #expect(row["attempts"] == 1)
            #expect(row["nextAttemptAt"]?.int != nil)
            #expect((row["createdAt"]?.int ?? 0) > 1_600_000_000_000)
            #expect(row["type"] == "tap")
            #expect(row["button"] == "b")
            #expect(row["sheet"] == nil)
            #expect(row["waitingFor"] == nil)
        }
        for handler in [first, second] {
            let mine = rows.filter { $0["handler"]?.string == handler }
            #expect(mine.map { $0["eventSeq"] } == taps.reversed().map { $0["seq"] })
            #expect(mine.map { $0["eventId"] } == taps.reversed().map { $0["id"] })
            #expect(try Self.list(server, "handler=\(handler)").map { $0["id"] } == mine.map { $0["id"] })
        }
        // Each delivery is what the receiver saw as webhook-id.
        #expect(Set(sink.received.compactMap { $0.headers["webhook-id"] }) == Set(Self.ids(rows)))

        let one = try Self.detail(server, Self.ids(rows).last!)
        #expect(one.status == 200)
        #expect(one.json["id"] == rows.last?["id"])
        #expect(one.json["eventSeq"] == taps[0]["seq"])
        #expect(one.json["event"] == taps[0])
        #expect(one.json["attempts"]?.array.count == 1)
        #expect(one.json["attempts"]?.array.first?["number"] == 1)
        #expect(one.json["attempts"]?.array.first?["outcome"] == "ok")
    }

    @Test func beforePagesBackAndAFullPageCarriesNext() throws {
        let server = try Self.server()
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let hid = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        for _ in 0..<7 { try Self.tap(server) }
        let all = try eventually(seconds: 60, { try Self.list(server, "handler=\(hid)") }, until: { $0.count == 7 && $0.allSatisfy { $0["status"] == "ok" } })
        try #require(all.count == 7)

        let page1 = try server.client.get("/api/v1/deliveries?handler=\(hid)&limit=3").json
        #expect(Self.ids(page1["deliveries"]?.array ?? []) == Array(Self.ids(all)[0..<3]))
        let next1 = try #require(page1["next"]?.string)
        #expect(next1 == Self.ids(all)[2])
        let page2 = try server.client.get("/api/v1/deliveries?handler=\(hid)&limit=3&before=\(next1)").json
        #expect(Self.ids(page2["deliveries"]?.array ?? []) == Array(Self.ids(all)[3..<6]))
        let next2 = try #require(page2["next"]?.string)
        #expect(next2 == Self.ids(all)[5])
        let page3 = try server.client.get("/api/v1/deliveries?handler=\(hid)&limit=3&before=\(next2)").json
        #expect(Self.ids(page3["deliveries"]?.array ?? []) == [Self.ids(all)[6]])
        #expect(page3["next"] == nil, "a short page is the last")

        // Exactly `limit` rows is a full page, even when nothing older is left.
        let full = try server.client.get("/api/v1/deliveries?handler=\(hid)&limit=7").json
        #expect(full["next"]?.string == Self.ids(all)[6])
        #expect(try Self.list(server, "handler=\(hid)&before=\(Self.ids(all)[6])").isEmpty)
        // Strictly older, also without a handler filter.
        #expect(Self.ids(try Self.list(server, "before=\(Self.ids(all)[0])")) == Array(Self.ids(all).dropFirst()))
        #expect(try server.client.get("/api/v1/deliveries?handler=\(hid)").json["next"] == nil)
    }

    @Test func filtersAndRefusedQueries() throws {
        let server = try Self.server()
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let good = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        let bad = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/status/400"), webhook: #", "maxAttempts": 1"#))
        for _ in 0..<2 { try Self.tap(server) }
        _ = try eventually(seconds: 60, { try Self.list(server) }, until: { $0.count == 4 && $0.allSatisfy { $0["status"] == "ok" || $0["status"] == "failed" } })

        #expect(try Self.list(server, "status=ok").map { $0["handler"]?.string } == [good, good])
        #expect(try Self.list(server, "status=failed").map { $0["handler"]?.string } == [bad, bad])
        #expect(try Self.list(server, "status=failed&handler=\(good)").isEmpty)
        #expect(try Self.list(server, "status=ok&handler=\(good)").count == 2)
        for status in ["pending", "in_flight", "expired", "blocked"] {
            #expect(try Self.list(server, "status=\(status)").isEmpty, "\(status)")
        }
        #expect(try Self.list(server, "handler=hdl_nosuchhandler").isEmpty)

        for status in ["done", "OK", "inflight", "in-flight", ""] {
            let reply = try server.client.get("/api/v1/deliveries?status=\(status)")
            #expect(reply.status == 422, "status=\(status): \(reply.text)")
            #expect(Self.error(reply) == "status")
        }
        for before in ["nope", "dlv_", "dlv_!!", "12345", "dlv_ABC", "evt_abc", "dlv_zzzzzzzzzzzzzzzz", ""] {
            let reply = try server.client.get("/api/v1/deliveries?before=\(before)")
            #expect(reply.status == 422, "before=\(before): \(reply.text)")
            #expect(Self.error(reply) == "before")
        }
        for limit in ["0", "-1", "abc", "1001"] {
            #expect(try server.client.get("/api/v1/deliveries?limit=\(limit)").status == 422, "limit=\(limit)")
        }
        #expect(try Self.detail(server, "dlv_zzzzzz").status == 404)
        #expect(try Self.detail(server, "nonsense").status == 404)
    }

    // MARK: 2. Retention

    @Test func retentionDropsTheOldestFinishedButNeverPendingOnes() throws {
        let server = try Self.server {
            $0.deliveryRetention = 10
            $0.retryScale = 600  // a failed attempt waits ~10 minutes: these stay pending
        }
        let sink = try RecordingSink()
        // The oldest deliveries of all: pending, behind a failed first attempt.
        try Self.button(server, #"{"id": "stuck", "maxTaps": 1}"#)
        let stuck = try Self.handler(server, sink, "buttons/stuck", Self.hook(sink.url("/status/500")))
        for _ in 0..<3 { try Self.tap(server, "stuck") }
        let pending = try eventually(seconds: 60, { try Self.list(server, "handler=\(stuck)") }, until: { $0.last?["attempts"] == 1 })
        #expect(pending.count == 3)

        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let hid = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        var seqs: [JSONValue] = []
        for _ in 0..<15 { seqs.append(try Self.tap(server)["seq"]!) }
        _ = sink.wait { $0.filter { $0.path == "/ok" }.count >= 15 }
        let kept = try eventually(
            seconds: 60, { try Self.list(server, "handler=\(hid)") },
            until: { $0.first?["eventSeq"] == seqs.last && $0.allSatisfy { $0["status"] == "ok" } })
        // Finished deliveries beyond 10 go, oldest first.
        #expect(kept.map { $0["eventSeq"] } == seqs.suffix(10).reversed())
        #expect(try Self.list(server, "status=ok").count == 10)
        let dropped = sink.received(path: "/ok").prefix(5).compactMap { $0.headers["webhook-id"] }
        #expect(dropped.count == 5)
        for id in dropped { #expect(try Self.detail(server, id).status == 404, "\(id) was dropped") }
        // Pending ones are never dropped, though older than everything kept.
        #expect(try Self.list(server, "handler=\(stuck)").map { $0["id"] } == pending.map { $0["id"] })
        #expect(try Self.list(server, "status=pending").count == 3)
        for id in Self.ids(pending) { #expect(try Self.detail(server, id).json["status"] == "pending") }
        #expect(try Self.list(server).count == 13)
    }

    @Test func retentionAllowsOnePercentSlack() throws {
        let server = try Self.server { $0.deliveryRetention = 100 }
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let hid = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        var last: JSONValue?
        for _ in 0..<104 { last = try Self.tap(server)["seq"] }
        let kept = try eventually(
            seconds: 120, { try Self.list(server, "handler=\(hid)&limit=1000") },
            until: { $0.first?["eventSeq"] == last && $0.allSatisfy { $0["status"] == "ok" } })
        // Past 100 + 1 %, trimmed back; never below the retention.
        #expect((100...101).contains(kept.count), "\(kept.count) kept")
    }

    /// A handler deleted while its attempt is in flight: the attempt ends after its delivery
    /// is gone. The log must still keep exactly `deliveryRetention` finished deliveries.
    @Test func retentionStaysExactAfterAHandlerIsDeletedMidAttempt() throws {
        let server = try Self.server { $0.deliveryRetention = 10 }
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "gone", "maxTaps": 1}"#)
        let gone = try Self.handler(server, sink, "buttons/gone", Self.hook(sink.url("/hold/g"), webhook: #", "timeoutMs": 30000"#))
        try Self.tap(server, "gone")
        #expect(sink.wait { $0.count == 1 }.count == 1)
        #expect(try server.client.request("DELETE", "/api/v1/handlers/\(gone)").status == 204)
        sink.release("g")
        // The attempt has ended (and was handed to the log) once it is counted.
        #expect(try eventually(seconds: 60, { try Self.attemptsEnded(server, outcome: "ok") }, until: { $0 >= 1 }) == 1)

        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let hid = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        var seqs: [JSONValue] = []
        for _ in 0..<12 { seqs.append(try Self.tap(server)["seq"]!) }
        let kept = try eventually(
            seconds: 60, { try Self.list(server, "handler=\(hid)") },
            until: { $0.first?["eventSeq"] == seqs.last && $0.allSatisfy { $0["status"] == "ok" } })
        #expect(kept.count == 10, "kept \(kept.count) finished deliveries with deliveryRetention = 10")
        #expect(kept.map { $0["eventSeq"] } == seqs.suffix(kept.count).reversed())
    }

    /// The log is full (exactly `deliveryRetention` finished deliveries) when an attempt of a
    /// deleted handler ends: its delivery is gone, so nothing was added and nothing kept may go.
    @Test func aLateAttemptOfADeletedHandlerTrimsNothing() throws {
        let server = try Self.server { $0.deliveryRetention = 10 }
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "gone", "maxTaps": 1}"#)
        let gone = try Self.handler(server, sink, "buttons/gone", Self.hook(sink.url("/hold/g"), webhook: #", "timeoutMs": 30000"#))
        try Self.tap(server, "gone")
        #expect(sink.wait { $0.count == 1 }.count == 1)

        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let hid = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        var seqs: [JSONValue] = []
        for _ in 0..<10 { seqs.append(try Self.tap(server)["seq"]!) }
        let full = try eventually(
            seconds: 60, { try Self.list(server, "handler=\(hid)") },
            until: { $0.count == 10 && $0.allSatisfy { $0["status"] == "ok" } })
        try #require(full.count == 10)

        #expect(try server.client.request("DELETE", "/api/v1/handlers/\(gone)").status == 204)
        sink.release("g")
        _ = try eventually(seconds: 60, { try Self.attemptsEnded(server, outcome: "ok") }, until: { $0 >= 11 })
        // Deleting a handler waits for the log's pending writes: after this, that attempt is recorded.
        let spare = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/spare"), on: #"["long-press"]"#))
        #expect(try server.client.request("DELETE", "/api/v1/handlers/\(spare)").status == 204)
        let kept = try Self.list(server, "handler=\(hid)")
        #expect(kept.count == 10, "kept \(kept.count) of 10 finished deliveries with deliveryRetention = 10")
        #expect(kept.map { $0["eventSeq"] } == seqs.reversed())
    }

    // MARK: 3. Deleting handlers and buttons

    @Test func deletingAHandlerDropsItsWholeLogAndItsPendingDeliveries() throws {
        let server = try Self.server()
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let fine = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        let hung = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/hold/h"), webhook: #", "timeoutMs": 30000"#))
        for _ in 0..<3 { try Self.tap(server) }
        let finished = try eventually(seconds: 60, { try Self.list(server, "handler=\(fine)") }, until: { $0.count == 3 && $0.allSatisfy { $0["status"] == "ok" } })
        #expect(sink.wait { $0.contains { $0.path == "/hold/h" } }.filter { $0.path == "/hold/h" }.count == 1)
        let stuck = try eventually(
            seconds: 60, { try Self.list(server, "handler=\(hung)") },
            until: { $0.count == 3 && $0.last?["status"] == "in_flight" })
        #expect(stuck.map { $0["status"]?.string ?? "" } == ["pending", "pending", "in_flight"])
        #expect(try Self.list(server, "status=in_flight&handler=\(hung)").map { $0["id"] } == [stuck.last?["id"]])
        #expect(try Self.list(server, "status=pending&handler=\(hung)").count == 2)
        #expect(try Self.outboxDepth(server) == 3)

        // Finished rows go with their handler too.
        #expect(try server.client.request("DELETE", "/api/v1/handlers/\(fine)").status == 204)
        #expect(try Self.list(server, "handler=\(fine)").isEmpty)
        for id in Self.ids(finished) { #expect(try Self.detail(server, id).status == 404) }
        #expect(try Self.outboxDepth(server) == 3)

        // Pending and in-flight ones are dropped at once: the outbox is empty right away.
        #expect(try server.client.request("DELETE", "/api/v1/handlers/\(hung)").status == 204)
        #expect(try Self.outboxDepth(server) == 0)
        #expect(try Self.list(server).isEmpty)
        #expect(try Self.list(server, "status=pending").isEmpty)
        #expect(try Self.list(server, "status=in_flight").isEmpty)
        for id in Self.ids(stuck) { #expect(try Self.detail(server, id).status == 404) }
        #expect(try server.client.get("/api/v1/handlers/\(hung)").status == 404)

        // The attempt that was in flight ends afterwards: nothing comes back.
        sink.release("h")
        _ = try eventually(seconds: 60, { try Self.attemptsEnded(server, outcome: "ok") }, until: { $0 >= 4 })
        usleep(300_000)
        #expect(try Self.list(server).isEmpty)
        #expect(try Self.outboxDepth(server) == 0)
        #expect(sink.received(path: "/hold/h").count == 1, "the dropped deliveries are never sent")
    }

    /// Deleting a handler while its button is being pressed: a delivery made for it just
    /// before the delete must not outlive it (pending forever, counted in the outbox, listed
    /// under a handler that is 404). Many rounds, so the window is hit if it is there; a
    /// server without the race passes every time.
    @Test func deletingAHandlerWhileItsButtonIsPressedLeavesNothingBehind() throws {
        let server = try Self.server { $0.retryScale = 600 }
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let stop = StopFlag()
        let pressers = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: pressers) {
                while !stop.isSet {
                    _ = try? server.post("/api/v1/buttons/b/press")
                    stop.pressed()
                }
            }
        }
        defer {
            stop.set()
            pressers.wait()
        }
        var deleted: Set<String> = []
        for _ in 0..<100 {
            let created = try server.post("/api/v1/buttons/b/handlers", Self.hook("http://127.0.0.1:9/x"))
            guard let hid = created.json["id"]?.string else { continue }
            // Let presses run against the handler (bounded: on a starved machine, go on anyway).
            let target = stop.presses + 2
            let deadline = Date().addingTimeInterval(2)
            while stop.presses < target && Date() < deadline { usleep(1_000) }
            #expect(try server.client.request("DELETE", "/api/v1/handlers/\(hid)").status == 204)
            deleted.insert(hid)
        }
        stop.set()
        pressers.wait()
        #expect(deleted.count == 100)
        #expect(stop.presses > 200)
        let left = try eventually(seconds: 5, { try Self.list(server, "limit=1000") }, until: { $0.isEmpty })
        let owners = Set(left.compactMap { $0["handler"]?.string })
        #expect(left.count == 0, "\(left.count) deliveries of \(owners.count) deleted handlers are left in the log")
        #expect(owners.isSubset(of: deleted))
        #expect(try Self.outboxDepth(server) == 0)
    }

    @Test func deletingAButtonDropsItsHandlersLogs() throws {
        let server = try Self.server()
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        try Self.button(server, #"{"id": "other", "maxTaps": 1}"#)
        let fine = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        let hung = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/hold/b"), webhook: #", "timeoutMs": 30000"#))
        let kept = try Self.handler(server, sink, "buttons/other", Self.hook(sink.url("/ok/other")))
        for _ in 0..<2 { try Self.tap(server) }
        try Self.tap(server, "other")
        let finished = try eventually(seconds: 60, { try Self.list(server, "handler=\(fine)") }, until: { $0.count == 2 && $0.allSatisfy { $0["status"] == "ok" } })
        let stuck = try eventually(seconds: 60, { try Self.list(server, "handler=\(hung)") }, until: { $0.last?["status"] == "in_flight" })
        let other = try eventually(seconds: 60, { try Self.list(server, "handler=\(kept)") }, until: { $0.first?["status"] == "ok" })
        #expect(try Self.outboxDepth(server) == 2)

        #expect(try server.client.request("DELETE", "/api/v1/buttons/b").status == 204)
        #expect(try Self.outboxDepth(server) == 0)
        for hid in [fine, hung] {
            #expect(try server.client.get("/api/v1/handlers/\(hid)").status == 404)
            #expect(try Self.list(server, "handler=\(hid)").isEmpty)
        }
        for id in Self.ids(finished) + Self.ids(stuck) { #expect(try Self.detail(server, id).status == 404) }
        // Another button's log is untouched.
        #expect(try Self.list(server).map { $0["id"] } == other.map { $0["id"] })
        sink.stop()
    }

    // MARK: 4. Order

    @Test func anOrderedHandlerHoldsLaterDeliveriesBehindARetry() throws {
        let server = try Self.server { $0.retryScale = 600 }  // the retry waits ~10 minutes
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let hid = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/fail-first/o")))
        #expect(try server.client.get("/api/v1/handlers/\(hid)").json["ordered"] == true)
        var seqs: [JSONValue] = []
        for _ in 0..<3 { seqs.append(try Self.tap(server)["seq"]!) }

        let rows = try eventually(
            seconds: 60, { try Self.list(server, "handler=\(hid)") },
            until: { $0.count == 3 && $0.last?["attempts"] == 1 && $0.last?["status"] == "pending" && $0.first?["waitingFor"] != nil })
        try #require(rows.count == 3)
        let head = try #require(rows.last?["id"]?.string)
        #expect(rows.map { $0["eventSeq"] } == seqs.reversed())
        #expect(rows.map { $0["status"]?.string ?? "" } == ["pending", "pending", "pending"])
        #expect(rows.map { $0["attempts"]?.int ?? -1 } == [0, 0, 1])
        #expect(rows.map { $0["waitingFor"]?.string } == [head, head, nil])
        #expect(try Self.list(server, "status=pending").map { $0["waitingFor"]?.string } == [head, head, nil])
        #expect(try Self.detail(server, Self.ids(rows)[0]).json["waitingFor"]?.string == head)
        // Pending ones page like the rest.
        let firstPage = try server.client.get("/api/v1/deliveries?status=pending&limit=2").json
        #expect(Self.ids(firstPage["deliveries"]?.array ?? []) == Array(Self.ids(rows).prefix(2)))
        let cursor = try #require(firstPage["next"]?.string)
        #expect(Self.ids(try Self.list(server, "status=pending&limit=2&before=\(cursor)")) == [head])
        usleep(300_000)
        #expect(sink.received.count == 1, "later deliveries wait behind the first one's retry")

        // One more attempt of the head now: it and then the rest go, in order.
        #expect(try server.post("/api/v1/deliveries/\(head)/redeliver").status == 202)
        let got = sink.wait { $0.count >= 4 }
        #expect(got.map { $0.json?["seq"] } == [seqs[0], seqs[0], seqs[1], seqs[2]])
        #expect(got.map { $0.headers["webhook-id"] } == [head, head, Self.ids(rows)[1], Self.ids(rows)[0]].map { Optional($0) })
        let done = try eventually(seconds: 60, { try Self.list(server, "handler=\(hid)") }, until: { $0.allSatisfy { $0["status"] == "ok" } })
        #expect(done.allSatisfy { $0["waitingFor"] == nil })
        #expect(done.map { $0["attempts"]?.int ?? -1 } == [1, 1, 2])
    }

    @Test func anUnorderedHandlerDeliversPastARetry() throws {
        let server = try Self.server { $0.retryScale = 600 }
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let created = try server.post("/api/v1/buttons/b/handlers", Self.hook(sink.url("/fail-first/u"), top: #", "ordered": false"#))
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["ordered"] == false)
        let hid = try #require(created.json["id"]?.string)
        try sink.trust(hid, secret: try #require(created.json["secret"]?.string))
        #expect(try server.client.get("/api/v1/handlers/\(hid)").json["ordered"] == false)
        #expect(try server.client.get("/api/v1/buttons/b/handlers").json["handlers"]?.array.first?["ordered"] == false)

        var seqs: [JSONValue] = []
        for _ in 0..<3 { seqs.append(try Self.tap(server)["seq"]!) }
        let got = sink.wait { $0.count >= 3 }
        #expect(got.map { $0.json?["seq"] } == seqs, "the later ones go while the first waits for its retry")
        #expect(got.map(\.n) == [1, 2, 3])
        let rows = try eventually(
            seconds: 60, { try Self.list(server, "handler=\(hid)") },
            until: { (rows: [JSONValue]) -> Bool in
                rows.map { $0["status"]?.string ?? "" } == ["ok", "ok", "pending"] && rows.last?["attempts"] == 1
            })
        #expect(rows.map { $0["status"]?.string ?? "" } == ["ok", "ok", "pending"])
        #expect(rows.allSatisfy { $0["waitingFor"] == nil })
        #expect(try Self.list(server, "status=pending").map { $0["waitingFor"] } == [nil])

        // A wrong type is a 400; it can be turned back on.
        #expect(try server.client.request("PATCH", "/api/v1/handlers/\(hid)", json: #"{"ordered": "no"}"#).status == 400)
        let patched = try server.client.request("PATCH", "/api/v1/handlers/\(hid)", json: #"{"ordered": true}"#)
        #expect(patched.status == 200)
        #expect(patched.json["ordered"] == true)
        #expect(try server.client.get("/api/v1/handlers/\(hid)").json["ordered"] == true)
    }

    // MARK: 5. Shaping a request

    @Test func homeAssistantShapedRequest() throws {
        let server = try Self.server()
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "kitchen", "label": "Kitchen", "maxTaps": 1}"#)
        let hid = try Self.handler(
            server, sink, "buttons/kitchen",
            Self.hook(
                sink.url("/api/services/light/toggle"),
                webhook: #", "body": {"entity_id": "light.kitchen"}, "headers": {"Authorization": "Bearer abc"}"#))
        let stored = try server.client.get("/api/v1/handlers/\(hid)").json["webhook"]
        #expect(stored?["method"] == "POST")
        #expect(stored?["body"] == .object(["entity_id": "light.kitchen"]))
        try Self.tap(server, "kitchen")

        let request = try #require(sink.wait { $0.count == 1 }.first)
        let expected = Array(#"{"entity_id":"light.kitchen"}"#.utf8)
        #expect(request.method == "POST")
        #expect(request.target == "/api/services/light/toggle")
        #expect(request.body == expected, "\(String(decoding: request.body, as: UTF8.self))")
        #expect(request.headers["authorization"] == "Bearer abc")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["content-length"] == String(expected.count))
        #expect(request.headers["user-agent"]?.hasPrefix("buttond/") == true)
        #expect(request.headers["webhook-id"]?.hasPrefix("dlv_") == true)
        #expect(request.headers["webhook-timestamp"].flatMap { Int64($0) } != nil)
        #expect(request.verifiedBy == [hid], "the template's bytes are what is signed")
        #expect(request.headers["expect"] == nil)
        #expect(request.headers["transfer-encoding"] == nil)

        let row = try eventually(seconds: 60, { try Self.list(server, "handler=\(hid)") }, until: { $0.first?["status"] == "ok" })
        #expect(row.first?["id"]?.string == request.headers["webhook-id"])
        let detail = try Self.detail(server, try #require(row.first?["id"]?.string)).json
        #expect(detail["body"] == .object(["entity_id": "light.kitchen"]))
        #expect(detail["event"]?["type"] == "tap")
    }

    @Test func companionShapedPutFillsBodyAndHeadersButNotTheURL() throws {
        let server = try Self.server()
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "studio-1", "label": "On Air", "maxTaps": 1}"#)
        let hid = try Self.handler(
            server, sink, "buttons/studio-1",
            Self.hook(
                sink.url("/api/location/1/0/2/press?via=buttond"),
                webhook: #", "method": "PUT", "body": {"button": "{button}", "label": "{label}"}, "headers": {"X-Source": "{button}/{type}", "X-Plain": "no {placeholder} here"}"#
            ))
        #expect(try server.client.get("/api/v1/handlers/\(hid)").json["webhook"]?["method"] == "PUT")
        try Self.tap(server, "studio-1")

        let request = try #require(sink.wait { $0.count == 1 }.first)
        #expect(request.method == "PUT")
        #expect(request.target == "/api/location/1/0/2/press?via=buttond")
        #expect(request.body == Array(#"{"button":"studio-1","label":"On Air"}"#.utf8), "\(String(decoding: request.body, as: UTF8.self))")
        #expect(request.headers["x-source"] == "studio-1/tap")
        #expect(request.headers["x-plain"] == "no {placeholder} here")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.verifiedBy == [hid])
    }

    @Test func everyPlaceholderAndTheWholeEvent() throws {
        let server = try Self.server()
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "lamp", "kind": "toggle", "label": "Lamp {id}", "maxTaps": 1}"#)
        let template = #"""
            {"button": "{button}", "type": "{type}", "seq": "{seq}", "t": "{t}", "face": "face={face}", "option": "[{option}]",
             "label": "{label}", "id": "{id}", "event": "{event}", "notWhole": " {event}", "keys": {"{button}": "{type}"},
             "kept": [1, true, null, "{unknown} {{ states('x') }} {seq"]}
            """#
        let hid = try Self.handler(
            server, sink, "buttons/lamp",
            Self.hook(
                sink.url("/lamp"), on: #"["toggle"]"#,
                webhook: #", "method": "PATCH", "body": \#(template), "headers": {"X-Face": "{face}", "X-Where": "{button}:{type}:{seq}:{id}"}"#))
        let press = try server.post("/api/v1/buttons/lamp/press")
        let toggle = try #require(press.json["events"]?.array.first { $0["type"] == "toggle" })
        let seq = try #require(toggle["seq"]?.int)
        let t = try #require(toggle["t"]?.int)
        let eventID = try #require(toggle["id"]?.string)
        #expect(toggle["data"]?["face"] == 1)

        let request = try #require(sink.wait { $0.count == 1 }.first)
        let expected: JSONValue = .object([
            "button": "lamp", "type": "toggle", "seq": .string(String(seq)), "t": .string(String(t)), "face": "face=1",
            "option": "[]", "label": "Lamp {id}", "id": .string(eventID), "event": toggle, "notWhole": " {event}",
            "keys": .object(["{button}": "toggle"]),
            "kept": .array([.int(1), .bool(true), .null, "{unknown} {{ states('x') }} {seq"]),
        ])
        #expect(request.method == "PATCH")
        #expect(request.json == expected)
        // Compact, keys sorted: the same inputs always give the same bytes.
        #expect(request.body == JSONWriter.encode(expected), "\(String(decoding: request.body, as: UTF8.self))")
        #expect(String(decoding: request.body, as: UTF8.self).hasPrefix(#"{"button":"lamp","event":{"#))
        #expect(request.headers["x-face"] == "1")
        #expect(request.headers["x-where"] == "lamp:toggle:\(seq):\(eventID)")
        #expect(request.verifiedBy == [hid])
    }

    @Test func getSendsNoBodyAndDeleteSendsItsTemplate() throws {
        let server = try Self.server()
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let get = try Self.handler(
            server, sink, "buttons/b",
            Self.hook(sink.url("/state?entity=light.kitchen"), webhook: #", "method": "GET", "headers": {"X-Button": "{button}"}"#))
        let delete = try Self.handler(
            server, sink, "buttons/b", Self.hook(sink.url("/things/1"), webhook: #", "method": "DELETE", "body": {"id": "{id}"}"#))
        let tap = try Self.tap(server)
        let got = sink.wait { $0.count == 2 }
        let g = try #require(got.first { $0.method == "GET" })
        #expect(g.target == "/state?entity=light.kitchen")
        #expect(g.body.isEmpty)
        #expect(g.headers["content-length"] == nil || g.headers["content-length"] == "0")
        #expect(g.headers["x-button"] == "b")
        #expect(g.verifiedBy == [get], "an empty body is signed as empty")
        let d = try #require(got.first { $0.method == "DELETE" })
        #expect(d.target == "/things/1")
        #expect(d.body == Array("{\"id\":\"\(tap["id"]?.string ?? "")\"}".utf8))
        #expect(d.verifiedBy == [delete])
    }

    @Test func methodAndBodyAreChecked() throws {
        let server = try Self.server()
        try Self.button(server, #"{"id": "b"}"#)
        let url = "http://127.0.0.1:9/x"
        for method in ["HEAD", "OPTIONS", "TRACE", "CONNECT", "FETCH", ""] {
            let reply = try server.post("/api/v1/buttons/b/handlers", Self.hook(url, webhook: ", \"method\": \"\(method)\""))
            #expect(reply.status == 422, "\(method): \(reply.text)")
            #expect(Self.error(reply) == "webhook.method")
        }
        #expect(try server.post("/api/v1/buttons/b/handlers", Self.hook(url, webhook: #", "method": 1"#)).status == 400)
        let getWithBody = try server.post("/api/v1/buttons/b/handlers", Self.hook(url, webhook: #", "method": "GET", "body": {"a": 1}"#))
        #expect(getWithBody.status == 422, "\(getWithBody.text)")
        #expect(Self.error(getWithBody) == "webhook.body")
        for body in [#""text""#, "42", "[1, 2]", "true", #"{"a": {"b": ["{event}"]}}"#] {
            let reply = try server.post("/api/v1/buttons/b/handlers", Self.hook(url, webhook: ", \"method\": \"PUT\", \"body\": \(body)"))
            #expect(reply.status == 201, "any JSON is a body: \(body): \(reply.text)")
        }
        // A POST with a body cannot become a GET and keep it.
        let post = try server.post("/api/v1/buttons/b/handlers", Self.hook(url, webhook: #", "body": {"a": 1}"#))
        let hid = try #require(post.json["id"]?.string)
        let patched = try server.client.request("PATCH", "/api/v1/handlers/\(hid)", json: #"{"webhook": {"method": "GET"}}"#)
        #expect(patched.status == 422, "\(patched.text)")
        #expect(Self.error(patched) == "webhook.body")
        let both = try server.client.request("PATCH", "/api/v1/handlers/\(hid)", json: #"{"webhook": {"method": "GET", "body": null}}"#)
        #expect(both.status == 200, "\(both.text)")
        #expect(both.json["webhook"]?["method"] == "GET")
        #expect(both.json["webhook"]?["body"] == nil)
    }

    @Test func aTemplatedBodyIsByteIdenticalOnRetry() throws {
        let server = try Self.server()
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "b", "label": "Bell", "maxTaps": 1}"#)
        let hid = try Self.handler(
            server, sink, "buttons/b",
            Self.hook(sink.url("/fail-first/r"), webhook: #", "body": {"at": "{t}", "id": "{id}", "label": "{label}", "event": "{event}"}"#))
        let tap = try Self.tap(server)
        let got = sink.wait { $0.count >= 2 }
        try #require(got.count == 2)
        #expect(got[0].body == got[1].body)
        #expect(got[0].json?["event"] == tap)
        #expect(got[0].json?["label"] == "Bell")
        #expect(got[0].headers["webhook-id"] == got[1].headers["webhook-id"])
        #expect(got.allSatisfy { $0.verifiedBy == [hid] })
        let rows = try eventually(seconds: 60, { try Self.list(server, "handler=\(hid)") }, until: { $0.first?["status"] == "ok" })
        let detail = try Self.detail(server, try #require(rows.first?["id"]?.string)).json
        #expect(detail["attempts"]?.array.map { $0["outcome"]?.string ?? "" } == ["http_status", "ok"])
        #expect(detail["attempts"]?.array.map { $0["statusCode"]?.int ?? 0 } == [500, 200])
        #expect(detail["body"] == got[0].json)
    }

    @Test func aSheetDeliveryNamesTheSheetAndFillsTheOption() throws {
        let server = try Self.server()
        let sink = try RecordingSink()
        let sheet = try server.post(
            "/api/v1/sheets", #"{"id": "scene", "title": "Scenes", "options": [{"id": "movie", "label": "Movie"}, {"id": "off", "label": "Off"}]}"#)
        #expect(sheet.status == 201, "\(sheet.text)")
        let hid = try Self.handler(
            server, sink, "sheets/scene",
            Self.hook(sink.url("/scene"), on: #"["select"]"#, webhook: #", "body": {"scene": "{option}", "from": "{button}", "title": "{label}"}"#))
        let chose = try server.post("/api/v1/sheets/scene/choose", #"{"option": "movie"}"#)
        #expect(chose.status == 200)
        let request = try #require(sink.wait { $0.count == 1 }.first)
        #expect(request.body == Array(#"{"from":"scene","scene":"movie","title":"Scenes"}"#.utf8), "\(String(decoding: request.body, as: UTF8.self))")
        #expect(request.verifiedBy == [hid])
        let rows = try eventually(seconds: 60, { try Self.list(server, "handler=\(hid)") }, until: { $0.first?["status"] == "ok" })
        #expect(rows.first?["sheet"] == "scene")
        #expect(rows.first?["button"] == nil)
        #expect(rows.first?["type"] == "select")
        // A sheet takes its handlers' logs with it too.
        #expect(try server.client.request("DELETE", "/api/v1/sheets/scene").status == 204)
        #expect(try Self.detail(server, try #require(rows.first?["id"]?.string)).status == 404)
        #expect(try Self.list(server).isEmpty)
    }

    // MARK: Redaction for the press token

    @Test func thePressTokenSeesHeaderAndQueryValuesAsStars() throws {
        let server = try Self.server {
            $0.adminToken = "admin-token-1"
            $0.pressToken = "press-token-1"
        }
        try Self.button(server, #"{"id": "b"}"#)
        let created = try server.post(
            "/api/v1/buttons/b/handlers",
            Self.hook("http://10.0.0.5:8123/api/hook?key=abc123&mode=x", webhook: #", "headers": {"Authorization": "Bearer abc"}"#))
        #expect(created.status == 201, "\(created.text)")
        let hid = try #require(created.json["id"]?.string)
        let press = HTTPClient(port: server.app.port, token: "press-token-1")
        let one = try press.get("/api/v1/handlers/\(hid)")
        #expect(one.status == 200)
        #expect(one.json["webhook"]?["url"] == "http://10.0.0.5:8123/api/hook?key=***&mode=***")
        #expect(one.json["webhook"]?["headers"] == .object(["Authorization": "***"]))
        for path in ["/api/v1/handlers/\(hid)", "/api/v1/buttons/b/handlers", "/api/v1/config"] {
            let reply = try press.get(path)
            #expect(reply.status == 200, "\(path)")
            #expect(!reply.text.contains("abc123") && !reply.text.contains("Bearer"), "\(path): \(reply.text)")
        }
        // The admin token sees them.
        let admin = try server.client.get("/api/v1/handlers/\(hid)")
        #expect(admin.json["webhook"]?["url"] == "http://10.0.0.5:8123/api/hook?key=abc123&mode=x")
        #expect(admin.json["webhook"]?["headers"] == .object(["Authorization": "Bearer abc"]))
    }

    // MARK: 6. Destinations

    @Test func buttondsOwnAddressIsRefusedAtRegistration() throws {
        let server = try Self.server()
        let sink = try RecordingSink()
        let port = server.app.port
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        for url in [
            "http://127.0.0.1:\(port)/api/v1/buttons/b/press", "http://[::ffff:127.0.0.1]:\(port)/x", "http://2130706433:\(port)/x",
            "http://0x7f.0.0.1:\(port)/x",
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
        usleep(300_000)
        #expect(try Self.detail(server, id).json["attempts"]?.array.count == 1, "blocked is final")
        #expect(try Self.outboxDepth(server) == 0)
        let taps = try server.client.get("/api/v1/events?button=b&limit=1000").json["events"]?.array.filter { $0["type"] == "tap" }
        #expect(taps?.count == 1, "the request never reached buttond")
    }

    @Test func denyPrivateRefusesLiteralsAndBlocksNames() throws {
        let server = try Self.server { $0.webhookDenyPrivate = true }
        let sink = try RecordingSink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        for url in [
            sink.url("/x"), "http://10.0.0.5/x", "http://192.168.1.10:8123/api", "http://172.16.0.1/x", "http://127.1.2.3/x",
            "http://[::1]:\(sink.port)/x", "http://[fc00::1]/x", "http://[::ffff:10.0.0.5]/x",
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
        let sink = try RecordingSink()
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
        usleep(300_000)
        #expect(sink.received.count == 2, "one more attempt, not more")

        for unknown in ["dlv_zzzzzz", "nonsense"] {
            #expect(try server.post("/api/v1/deliveries/\(unknown)/redeliver").status == 404, "\(unknown)")
        }
        #expect(try server.post("/api/v1/handlers/hdl_nosuchhandler/test").status == 404)
    }

    // MARK: 8. Restart

    @Test func aRestartKeepsTheLogAndSendsPendingOnesOnce() throws {
        let dir = NSTemporaryDirectory() + "buttond-delivery-log-\(UUID().uuidString)"
        let sink = try RecordingSink()
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
        usleep(300_000)
        let later = sink.received(path: "/later")
        #expect(later.map { $0.headers["webhook-id"] } == Self.ids(pending).reversed().map { Optional($0) }, "each pending one once, in order")
        #expect(later.allSatisfy { $0.verifiedBy == [waiting] })
        #expect(sink.received(path: "/ok").count == 2, "finished ones are not sent again")
        #expect(Self.ids(settled) == Self.ids(before))
        #expect(try Self.outboxDepth(server) == 0)
    }
}
