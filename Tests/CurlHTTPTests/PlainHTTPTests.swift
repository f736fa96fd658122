import Platform
import Synchronization
import TestSupport
import Testing
import ThreadSupport

@testable import CurlHTTP

/// `HTTPLoop` sending plain `http://` to an IP literal itself (`PlainHTTP`), against a peer
/// that answers as each test scripts it: connections kept and replaced, every way an answer
/// can end, and failures read as libcurl's.
@Suite struct PlainHTTPTests {
    /// Sends `request` on `loop` and waits for its completion.
    static func send(_ loop: HTTPLoop, _ request: HTTPRequest) -> Result<HTTPClient.Reply, HTTPClient.Failure> {
        let done = Condition()
        let result = Mutex<Result<HTTPClient.Reply, HTTPClient.Failure>?>(nil)
        loop.send(request) { answer in
            done.locked {
                result.withLock { $0 = answer }
                done.signal()
            }
        }
        return done.locked {
            _ = done.wait(seconds: 30) { result.withLock { $0 != nil } }
            return result.withLock { $0 } ?? .failure(HTTPClient.Failure(description: "no completion within 30 s"))
        }
    }

    static func post(_ port: Int, path: String = "/hook", body: String = "{}") -> HTTPRequest {
        HTTPRequest(method: "POST", url: "http://127.0.0.1:\(port)\(path)", headerLines: ["Content-Type: application/json"], body: Array(body.utf8))
    }

    static func loop() -> HTTPLoop {
        let loop = HTTPLoop(name: "test.http", clock: .system)
        loop.start()
        return loop
    }

    @Test func theRequestsOfOneAddressShareAKeptConnection() throws {
        let peer = try ScriptedPeer { index in .ok("answer \(index)") }
        defer { peer.stop() }
        let loop = Self.loop()
        defer { loop.stop() }
        for index in 0..<3 {
            let reply = try Self.send(loop, Self.post(peer.port, body: "{\"n\":\(index)}")).get()
            #expect(reply.status == 200)
            #expect(reply.text == "answer \(index)")
        }
        #expect(peer.accepted == 1)
        #expect(peer.received.map(\.connection) == [0, 0, 0])
        #expect(peer.received.last?.text.hasSuffix("\r\n\r\n{\"n\":2}") == true)
    }

    /// The peer closes a kept connection after its answer: the next request goes on a new one
    /// and nothing fails.
    @Test func aKeptConnectionThePeerClosedIsReplaced() throws {
        let peer = try ScriptedPeer { index in
            index == 0 ? .answerAndClose(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)) : .ok("again")
        }
        defer { peer.stop() }
        let loop = Self.loop()
        defer { loop.stop() }
        #expect(try Self.send(loop, Self.post(peer.port)).get().text == "ok")
        #expect(try Self.send(loop, Self.post(peer.port)).get().text == "again")
        #expect(peer.accepted == 2)
    }

    /// A kept connection that ends before any byte of its answer: the request is sent again on
    /// a new connection, as libcurl does; on a new connection the same is a failure, in
    /// libcurl's words.
    @Test func aReusedConnectionThatDiesBeforeTheAnswerIsRetriedOnce() throws {
        let peer = try ScriptedPeer { index in index == 1 ? .close : .ok("fine") }
        defer { peer.stop() }
        let loop = Self.loop()
        defer { loop.stop() }
        #expect(try Self.send(loop, Self.post(peer.port)).get().text == "fine")
        #expect(try Self.send(loop, Self.post(peer.port)).get().text == "fine")
        #expect(peer.received.map(\.connection) == [0, 0, 1])

        let closing = try ScriptedPeer { _ in .close }
        defer { closing.stop() }
        let failure = try #require(Self.send(loop, Self.post(closing.port)).failure)
        #expect(failure.curlMessage == "Server returned nothing (no headers, no data)")
        #expect(failure.kind == .other)
        #expect(closing.received.count == 1)
    }

    @Test func aChunkedAnswerWithExtensionsAndTrailers() throws {
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n4;name=value\r\nWiki\r\n5\r\npedia\r\nd \r\n in\r\n\r\nchunks\r\n0\r\nX-Trailer: yes\r\n\r\n"
        let peer = try ScriptedPeer { _ in .answer(Array(chunked.utf8)) }
        defer { peer.stop() }
        let loop = Self.loop()
        defer { loop.stop() }
        for _ in 0..<2 {
            let reply = try Self.send(loop, Self.post(peer.port)).get()
            #expect(reply.text == "Wikipedia in\r\n\r\nchunks")
        }
        #expect(peer.accepted == 1)
    }

    @Test func anAnswerWithoutALengthEndsWithTheConnection() throws {
        let peer = try ScriptedPeer { _ in .answerAndClose(Array("HTTP/1.1 202 Accepted\r\nX-A: 1\r\n\r\nuntil the end".utf8)) }
        defer { peer.stop() }
        let loop = Self.loop()
        defer { loop.stop() }
        let reply = try Self.send(loop, Self.post(peer.port)).get()
        #expect(reply.status == 202)
        #expect(reply.text == "until the end")
        #expect(reply.header("x-a") == "1")
        #expect(try Self.send(loop, Self.post(peer.port)).get().status == 202)
        #expect(peer.accepted == 2)
    }

    /// Only the first `bodyLimit` bytes are kept, only the kept headers are made, an interim
    /// answer is skipped; the connection is still kept.
    @Test func keptBytesAndHeadersAndAnInterimAnswer() throws {
        let answer = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 503 Busy\r\nRetry-After: 7\r\nX-Other: 2\r\nContent-Length: 10\r\n\r\n0123456789"
        let peer = try ScriptedPeer { _ in .answer(Array(answer.utf8)) }
        defer { peer.stop() }
        let loop = Self.loop()
        defer { loop.stop() }
        var request = Self.post(peer.port)
        request.bodyLimit = 4
        request.keptHeaders = ["retry-after"]
        for _ in 0..<2 {
            let reply = try Self.send(loop, request).get()
            #expect(reply.status == 503)
            #expect(reply.text == "0123")
            #expect(reply.headers == ["retry-after": "7"])
        }
        #expect(peer.accepted == 1)
    }

    @Test func nothingListeningReadsAsLibcurlsFailure() throws {
        let port = try HTTPClientTests.listeningSocket { _ in }
        let loop = Self.loop()
        defer { loop.stop() }
        let plain = try #require(Self.send(loop, Self.post(port)).failure)
        // The same through libcurl: a host name is not a literal, so libcurl sends it.
        let curl = try #require(Self.send(loop, HTTPRequest(method: "POST", url: "http://localhost:\(port)/hook", body: [])).failure)
        #expect(plain.curlMessage == "Couldn't connect to server")
        #expect(plain.curlMessage == curl.curlMessage)
        #expect(plain.kind == .other && curl.kind == .other)
        #expect(plain.description.hasPrefix("cannot reach http://127.0.0.1:\(port): "))
    }

    @Test func aSilentPeerTimesOut() throws {
        let peer = try ScriptedPeer { _ in .silent }
        defer { peer.stop() }
        let loop = Self.loop()
        defer { loop.stop() }
        var request = Self.post(peer.port)
        request.timeoutMs = 300
        let started = Clock.system.monotonic()
        let failure = try #require(Self.send(loop, request).failure)
        let elapsed = Clock.system.monotonic() - started
        #expect(failure.kind == .timedOut)
        #expect(failure.curlMessage == "Timeout was reached")
        #expect(elapsed >= 0.29 && elapsed < 5, "gave up after \(elapsed) s")
    }

    @Test func anAddressTheCheckRefusesIsNeverConnected() throws {
        let peer = try ScriptedPeer { _ in .ok("never") }
        defer { peer.stop() }
        let loop = Self.loop()
        defer { loop.stop() }
        var request = Self.post(peer.port)
        let asked = Mutex<[([UInt8], Int)]>([])
        request.addressCheck = { address, port in
            asked.withLock { $0.append((address, port)) }
            return "a loopback address"
        }
        let failure = try #require(Self.send(loop, request).failure)
        #expect(failure.kind == .refused("a loopback address"))
        #expect(asked.withLock { $0.map(\.0) } == [[127, 0, 0, 1]])
        #expect(asked.withLock { $0.map(\.1) } == [peer.port])
        usleep(100_000)
        #expect(peer.accepted == 0)
    }

    @Test func stoppingCutsOffWhatIsUnderWay() throws {
        let peer = try ScriptedPeer { _ in .silent }
        defer { peer.stop() }
        let loop = Self.loop()
        let done = Mutex<HTTPClient.Failure?>(nil)
        loop.send(Self.post(peer.port)) { answer in done.withLock { $0 = answer.failure } }
        #expect(eventually { peer.received.count == 1 })
        loop.stop()
        #expect(done.withLock { $0?.description } == HTTPLoop.stoppedFailure.description)
        let after = Self.send(loop, Self.post(peer.port))
        #expect(after.failure?.description == HTTPLoop.stoppedFailure.description)
    }

    /// A stopped loop lets go of its kept connections, libcurl's and its own, and of libcurl's
    /// handles, while something still holds it: the parts of a stopped server hold no sockets.
    @Test func aStoppedLoopClosesItsKeptConnections() throws {
        let peer = try ScriptedPeer { _ in .ok("done") }
        defer { peer.stop() }
        let loop = Self.loop()
        var throughCurl = Self.post(peer.port)
        throughCurl.url = "http://localhost:\(peer.port)/hook"
        #expect(PlainRequest(throughCurl) == nil)
        for request in [Self.post(peer.port), throughCurl] {
            #expect(try Self.send(loop, request).get().status == 200)
        }
        #expect(peer.open == 2)
        loop.stop()
        #expect(eventually { peer.open == 0 })
        #expect(Self.send(loop, throughCurl).failure?.description == HTTPLoop.stoppedFailure.description)
        withExtendedLifetime(loop) {}
    }

    /// What goes on the wire is what libcurl sends for the same request (the host aside):
    /// its `Accept`, `Content-Length` and form content type where none is given, the
    /// request's lines, `Name;` as an empty header, `Name:` as none.
    @Test(arguments: [
        ("POST", ["Content-Type: application/json", "User-Agent: buttond/1.0", "webhook-id: dlv_1", "Expect:"], "{\"a\":1}"),
        ("PUT", ["X-Empty;", "Accept: text/plain", "X-Spaced:   value  with  spaces"], "body"),
        ("DELETE", [], ""),
        ("GET", ["X-Token: abc"], nil),
        ("PATCH", ["Content-Type: text/plain", "Accept:"], "p"),
    ] as [(String, [String], String?)])
    func theSameBytesAsLibcurl(method: String, lines: [String], body: String?) throws {
        let peer = try ScriptedPeer { _ in .ok("") }
        defer { peer.stop() }
        let loop = Self.loop()
        defer { loop.stop() }
        for host in ["127.0.0.1", "localhost"] {
            let request = HTTPRequest(method: method, url: "http://\(host):\(peer.port)/p/a?q=1&r=%20#frag", headerLines: lines, body: body.map { Array($0.utf8) })
            #expect((PlainRequest(request) != nil) == (host == "127.0.0.1"))
            _ = try Self.send(loop, request).get()
        }
        let (plain, curl) = (peer.received[0].text, peer.received[1].text)
        func parts(_ text: String) -> (String, Set<String>, Substring) {
            let head = text[..<text.range(of: "\r\n\r\n")!.lowerBound]
            let lines = head.components(separatedBy: "\r\n")
            return (lines[0], Set(lines.dropFirst().filter { !$0.hasPrefix("Host: ") }), text[text.range(of: "\r\n\r\n")!.upperBound...])
        }
        #expect(parts(plain).0 == "\(method) /p/a?q=1&r=%20 HTTP/1.1")
        #expect(parts(plain).0 == parts(curl).0)
        #expect(parts(plain).1 == parts(curl).1)
        #expect(parts(plain).2 == parts(curl).2)
        #expect(plain.contains("\r\nHost: 127.0.0.1:\(peer.port)\r\n"))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
