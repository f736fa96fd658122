import Foundation
import Synchronization
import MicroHTTP
import Testing
import CurlHTTP
import TestSupport

@Suite("HTTP server, live on port 0")
struct ServerTests {
    @Test func routesWithParameters() throws {
        let live = try LiveServer()
        #expect(live.server.port > 0)
        let hello = try live.client.get("/hello")
        #expect(hello.status == 200)
        #expect(hello.text == "hello")
        let item = try live.client.get("/items/door-1")
        #expect(item.json["id"] == "door-1")
        #expect(try live.client.request("DELETE", "/items/x").status == 204)
        let part = try live.client.get("/items/door-1/parts/hinge")
        #expect(part.json == ["id": "door-1", "part": "hinge"])
        #expect(try live.client.get("//items//door-2/").json["id"] == "door-2", "empty segments are skipped")
    }

    /// A handler reads a request's headers by name in any case; one not sent is nil. The
    /// server reports each request with the client's address.
    @Test func headersAreReadByNameAndRequestsRecordTheClient() throws {
        let live = try LiveServer()
        let sent = try live.client.request("GET", "/headers/x-mixed-case", body: nil, headers: ["X-Mixed-CASE": "a b=c"])
        #expect(sent.json["value"] == "a b=c")
        let upper = try live.client.request("GET", "/headers/X-Mixed-Case", body: nil, headers: ["x-mixed-case": "v"])
        #expect(upper.json["value"] == "v")
        #expect(try live.client.get("/headers/x-absent").json["value"] == .null)
        let records = live.records.list.withLock { $0 }
        #expect(records.count == 3)
        #expect(records.allSatisfy { $0.remoteAddress == "127.0.0.1" && $0.route == "/headers/{name}" && $0.status == 200 })
        // Heads whose headers fill the first buffer they are copied into, and pass it (they are
        // copied again): the header after the long one is read whole either way.
        for length in [900, 1000, 1023, 1024, 1100, 6000] {
            let long = String(repeating: "v", count: length)
            let answer = try live.client.request("GET", "/headers/x-after", body: nil, headers: ["X-Long": long, "X-After": "last \(length)"])
            #expect(answer.json["value"] == .string("last \(length)"), "\(length)")
            #expect(try live.client.request("GET", "/headers/x-long", body: nil, headers: ["X-Long": long]).json["value"] == .string(long))
        }
    }

    /// An answer made on the slow lane waits there while the workers serve others; past its
    /// capacity the route answers 503 with `Retry-After` at once; what the work throws is the
    /// route's JSON error.
    @Test func theSlowLaneAnswersLaterAndRefusesPastItsCapacity() throws {
        let live = try LiveServer()
        let statuses = Mutex<[String: Int]>([:])
        let group = DispatchGroup()
        func send(_ what: String) {
            DispatchQueue.global().async(group: group) {
                let client = HTTPClient(port: live.server.port)
                let answer = try? client.get("/slow/\(what)")
                statuses.withLock { $0[what] = answer?.status ?? -1 }
                if answer?.status == 200 { #expect(answer?.text == "slow \(what)") }
                if answer?.status == 503 {
                    #expect(answer?.header("retry-after") == "1")
                    #expect(answer?.json["error"]?["code"] == "unavailable")
                }
            }
        }
        send("a")
        #expect(live.started.wait(timeout: .now() + 10) == .success, "the lane took the first")
        #expect(try live.client.get("/hello").text == "hello", "a worker is free while the lane works")
        send("b")
        send("c")
        // One of b and c waits in the lane's one place; the other is refused without waiting.
        for _ in 0..<500 where statuses.withLock({ $0.count }) == 0 { usleep(10_000) }
        #expect(statuses.withLock { $0.values.sorted() } == [503])
        live.gate.signal()
        #expect(live.started.wait(timeout: .now() + 10) == .success)
        live.gate.signal()
        #expect(group.wait(timeout: .now() + 10) == .success)
        let answered = statuses.withLock { $0 }
        #expect(answered["a"] == 200)
        #expect([answered["b"], answered["c"]].compactMap { $0 }.sorted() == [200, 503])

        send("fail")
        #expect(live.started.wait(timeout: .now() + 10) == .success)
        live.gate.signal()
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(statuses.withLock { $0["fail"] } == 409)
    }

    @Test func unknownRouteAndWrongMethodAreJSONErrors() throws {
        let live = try LiveServer()
        let post = try live.client.request("POST", "/items/a", json: "{}")
        #expect(post.status == 405)
        #expect(post.header("allow") == "GET, DELETE, HEAD")
        #expect(post.errorCode == "method_not_allowed")
        let missing = try live.client.get("/nothing-here")
        #expect(missing.status == 404)
        #expect(missing.errorCode == "not_found")
        #expect(missing.header("content-type") == "application/json")
        let thrown = try live.client.get("/fail")
        #expect(thrown.status == 409)
        #expect(thrown.json == ["error": ["code": "busy", "message": "it is busy"]])
    }

    @Test func bodiesAreParsedStrictly() throws {
        let live = try LiveServer()
        let ok = try live.client.request("POST", "/echo", json: #"{"a": [1, 2.5, "x", null, true]}"#)
        #expect(ok.status == 200)
        #expect(ok.json["value"] == ["a": [1, .double(2.5), "x", nil, true]])
        let malformed = try live.client.request("POST", "/echo", json: "{\"a\": ")
        #expect(malformed.status == 400)
        #expect(malformed.errorCode == "bad_request")
        let duplicate = try live.client.request("POST", "/echo", json: #"{"a": 1, "a": 2}"#)
        #expect(duplicate.status == 400)
        let notJSON = try live.client.request("POST", "/echo", body: Array("a=1".utf8), headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(notJSON.status == 415)
        let text = try live.client.request("POST", "/echo", body: Array("{}".utf8), headers: ["Content-Type": "text/plain"])
        #expect(text.status == 415)
        let curlDefault = try live.client.request("POST", "/echo", body: Array(#"{"a": 1}"#.utf8), headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(curlDefault.status == 200)
        #expect(notJSON.errorCode == "unsupported_media_type")
        let badUTF8 = try live.client.request("POST", "/echo", body: [0x22, 0xFF, 0xFE, 0x22])
        #expect(badUTF8.status == 400)
        let deep = try live.client.request("POST", "/echo", json: String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000))
        #expect(deep.status == 400)
    }

    @Test func sixtyKilobyteBodyArrivesWhole() throws {
        let live = try LiveServer()
        let payload = String(repeating: "x", count: 60 * 1024)
        let reply = try live.client.request("POST", "/echo", json: "\"\(payload)\"")
        #expect(reply.status == 200)
        #expect(reply.json["size"] == .int(Int64(60 * 1024 + 2)))
        #expect(reply.json["value"] == .string(payload))
    }

    @Test func oversizedBodiesGet413AndServerKeepsServing() throws {
        let live = try LiveServer()
        let big = [UInt8](repeating: 0x20, count: 1024 * 1024)
        let reply = try live.client.request("POST", "/echo", body: big)
        #expect(reply.status == 413)
        #expect(reply.errorCode == "payload_too_large")
        // Chunked upload with no declared length: refused once it passes the limit.
        let connection = try RawConnection(port: live.server.port)
        var raw = Array("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".utf8)
        for _ in 0..<20 { raw += Array("1000\r\n".utf8) + [UInt8](repeating: 0x20, count: 4096) + Array("\r\n".utf8) }
        raw += Array("0\r\n\r\n".utf8)
        // The server may answer and close before the whole body is sent.
        try? connection.write(raw)
        let chunked = try connection.readReply()
        #expect(chunked.status == 413)
        #expect(try live.client.get("/hello").status == 200)
    }

    /// A declared Content-Length (read in the framing check's walk over the headers) decides
    /// before any of the body is read: past the limit, even past Int64, it is refused at once
    /// with nothing sent; a body of exactly the limit is read whole.
    @Test func aDeclaredLengthOverTheLimitIsRefusedBeforeItsBody() throws {
        let live = try LiveServer()
        let limit = live.server.configuration.maxBodyBytes
        for declared in [String(limit + 1), "1000000000", "9223372036854775808"] {
            let connection = try RawConnection(port: live.server.port, timeoutSeconds: 5)
            try connection.write(
                Array("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: \(declared)\r\n\r\n".utf8))
            let reply = try connection.readReply()
            #expect(reply.status == 413, "Content-Length: \(declared)")
            #expect(reply.errorCode == "payload_too_large", "Content-Length: \(declared)")
        }
        let payload = String(repeating: "x", count: limit - 2)
        let whole = try live.client.request("POST", "/echo", json: "\"\(payload)\"")
        #expect(whole.status == 200)
        #expect(whole.json["size"] == .int(Int64(limit)))
    }

    @Test func staticFiles() throws {
        let live = try LiveServer()
        let index = try live.client.get("/")
        #expect(index.status == 200)
        #expect(index.header("content-type") == "text/html; charset=utf-8")
        #expect(index.header("content-security-policy") == "default-src 'self'; frame-ancestors 'self'")
        #expect(index.header("x-frame-options") == "SAMEORIGIN")
        #expect(index.header("x-content-type-options") == "nosniff")
        #expect(index.header("referrer-policy") == "no-referrer")
        let css = try live.client.get("/css/site.css")
        #expect(css.header("content-type") == "text/css; charset=utf-8")
        let etag = try #require(css.header("etag"))
        let cached = try live.client.request("GET", "/css/site.css", headers: ["If-None-Match": etag])
        #expect(cached.status == 304)
        #expect(try live.client.request("GET", "/css/site.css", headers: ["If-None-Match": "W/" + etag]).status == 304)
        #expect(cached.body.isEmpty)
        #expect(try live.client.get("/css").status == 404)  // a directory without index.html: no listing
        for path in ["/../microhttp-secret.txt", "/css/../../microhttp-secret.txt", "/%2e%2e/microhttp-secret.txt", "//etc/passwd"] {
            let escape = try live.client.get(path)
            #expect(escape.status == 400 || escape.status == 404, "\(path)")
            #expect(!escape.text.contains("secret"), "\(path)")
        }
        #expect(try live.client.request("POST", "/index.html", json: "{}").status == 405)
    }

    @Test func streamReceivesPushedMessagesAndHeartbeats() throws {
        let live = try LiveServer(heartbeatSeconds: 0.2)
        let reader = try live.client.stream("/stream")
        #expect(reader.status == 200)
        #expect(reader.headers["content-type"] == "text/event-stream")
        let stream = try #require(live.streams(count: 1).first)
        #expect(try reader.next().comment)
        for i in 1...3 { stream.send(Array("id: \(i)\ndata: message \(i)\n\n".utf8)) }
        var received: [String] = []
        while received.count < 3 {
            let message = try reader.next()
            if !message.comment { received.append(message.data) }
        }
        #expect(received == ["message 1", "message 2", "message 3"])
        // Idle: the heartbeat comment still arrives.
        #expect(try reader.next().comment)
    }

    @Test func streamCapAnswers503() throws {
        let live = try LiveServer(maxStreams: 2)
        let a = try live.client.stream("/stream")
        let b = try live.client.stream("/stream")
        _ = live.streams(count: 2)
        let c = try live.client.get("/stream")
        #expect(c.status == 503)
        #expect(c.header("retry-after") != nil)
        withExtendedLifetime((a, b)) {}
    }

    @Test func aStreamWhoseClientLeftFreesItsSlot() throws {
        let live = try LiveServer(maxStreams: 1)
        do {
            let first = try live.client.stream("/stream")
            #expect(first.status == 200)
            _ = live.streams(count: 1)
        }  // the client hangs up here
        var reopened = 0
        for _ in 0..<40 where reopened != 200 {
            usleep(50_000)
            reopened = (try? live.client.stream("/stream").status) ?? 0
        }
        #expect(reopened == 200)
    }

    @Test func aProducerWaitingForADrainHearsOfTheHangUp() throws {
        final class Heard: Sendable { let closed = Atomic<Int>(0) }
        let live = try LiveServer(heartbeatSeconds: 0.1)
        let heard = Heard()
        do {
            let reader = try live.client.stream("/stream")
            #expect(reader.status == 200)
            let stream = try #require(live.streams(count: 1).first)
            stream.onDrain { [weak stream] in
                if stream?.isOpen != true { heard.closed.add(1, ordering: .relaxed) }
            }
        }  // the client hangs up here; the next heartbeat finds it gone
        for _ in 0..<100 where heard.closed.load(ordering: .relaxed) == 0 { usleep(50_000) }
        #expect(heard.closed.load(ordering: .relaxed) == 1)
    }

    @Test func fiftyConcurrentClientsAreAllAnswered() async throws {
        let live = try LiveServer()
        let client = live.client
        let statuses = await withTaskGroup(of: Int.self) { group in
            for i in 0..<50 {
                group.addTask { (try? client.get("/items/\(i)").status) ?? -1 }
            }
            var all: [Int] = []
            for await status in group { all.append(status) }
            return all
        }
        #expect(statuses.count == 50)
        #expect(statuses.allSatisfy { $0 == 200 })
    }

    @Test func stopsCleanlyWithAStreamOpen() throws {
        let live = try LiveServer()
        let reader = try live.client.stream("/stream")
        _ = live.streams(count: 1)
        _ = try reader.next()
        let started = Date()
        live.server.stop()
        #expect(reader.endsWithin(seconds: 5))
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(throws: (any Error).self) { try live.client.get("/hello") }
    }
}
