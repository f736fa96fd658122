import Foundation
import Testing
import TestSupport
import CurlHTTP
import Platform

/// SIGTERM (SPEC §2): stop accepting, finish reading and answering every request that has
/// begun (at most 5 s), then exit 0: no request is applied without an answer.
@Suite("Stopping answers every request under way")
struct ShutdownTests {
    @Test func requestsCaughtMidHeadOrMidBodyAreAnsweredBeforeTheExit() throws {
        let dir = NSTemporaryDirectory() + "buttond-stop-\(UUID().uuidString)"
        let server = try ServerProcess(dataDir: dir)
        #expect(try server.client.request("POST", "/api/v1/buttons", json: #"{"id": "door"}"#).status == 201)
        let head = "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        let body = #"{"holdMs": 10}"#
        // Five caught in the head, five in the body, and one idle keep-alive connection.
        var midHead: [RawConnection] = []
        var midBody: [RawConnection] = []
        for _ in 0..<5 {
            let connection = try RawConnection(port: server.port, timeoutSeconds: 10)
            try connection.write(Array(head.utf8))
            midHead.append(connection)
            let other = try RawConnection(port: server.port, timeoutSeconds: 10)
            try other.write(Array((head + "Content-Length: \(body.utf8.count)\r\n\r\n" + body.prefix(4)).utf8))
            midBody.append(other)
        }
        let idle = try RawConnection(port: server.port, timeoutSeconds: 10)
        try idle.write(Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        #expect(try idle.readReply().status == 200)
        usleep(200_000)
        kill(server.pid, SIGTERM)
        usleep(500_000)
        // A new connection is refused (or reset) while those under way are finished.
        #expect((try? server.client.get("/healthz"))?.status != 200)
        for connection in midHead {
            try connection.write(Array("Content-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
        }
        for connection in midBody { try connection.write(Array(body.dropFirst(4).utf8)) }
        var answered = 0
        for connection in midHead + midBody {
            let reply = try connection.readReply()
            #expect(reply.status == 200)
            #expect(reply.header("connection")?.lowercased() == "close")
            if reply.status == 200 { answered += 1 }
        }
        #expect(answered == 10)
        #expect(server.stop(SIGTERM, within: 10) == 0)
        // What was answered is what was applied: ten presses, four events each.
        let again = try ServerProcess(dataDir: dir)
        defer { again.stop() }
        let events = try again.client.get("/api/v1/events?after=0&limit=1000&button=door").json["events"]?.array ?? []
        #expect(events.filter { $0["type"]?.string == "touch-down" }.count == 10)
    }

    /// Stopping begins with the port: while the dispatcher still waits (its grace) for a
    /// webhook in flight, no new request is taken.
    @Test func aStopTakesNoNewRequestWhileADeliveryFinishes() throws {
        let server = try TestServer()
        let sink = try Sink()
        try DeliveryLogRouteTests.button(server, #"{"id": "door", "maxTaps": 1}"#)
        try DeliveryLogRouteTests.handler(
            server, sink, "buttons/door", DeliveryLogRouteTests.hook(sink.url("/hold/s"), webhook: #", "timeoutMs": 30000"#))
        try DeliveryLogRouteTests.tap(server, "door")
        #expect(sink.wait { $0.count == 1 }.count == 1)  // in flight, held by the sink
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            server.stop()
            stopped.signal()
        }.start()
        usleep(500_000)
        #expect(stopped.wait(timeout: .now()) == .timedOut, "the stop waits for the delivery")
        let reply = try? HTTPClient(port: server.app.port).request("POST", "/api/v1/buttons/door/press", json: "{}")
        #expect(reply?.status != 200, "a press after the stop began was taken")
        sink.release("s")
        #expect(stopped.wait(timeout: .now() + 20) == .success)
    }
}
