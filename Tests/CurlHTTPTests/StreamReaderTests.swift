import CurlHTTP
import Foundation
import MicroHTTP
import Synchronization
import Testing

/// Event streams read block by block (the tests' way) and followed on the caller's thread
/// (the CLI's way), against a real server's stream.
@Suite struct StreamReaderTests {
    @Test func blocksArriveInOrderAndCommentsAreSkippedByNextEvent() throws {
        let server = try EchoServer(heartbeatSeconds: 0.1)
        let reader = try HTTPClient(port: server.port, timeoutSeconds: 10).stream("/stream")
        #expect(reader.status == 200)
        #expect(reader.headers["content-type"] == "text/event-stream")
        let stream = try #require(server.stream())
        stream.send(Array("id: 1\nevent: tap\ndata: {\"a\":\ndata: 1}\n\n".utf8))
        stream.send(Array("id: 2\ndata:x\n\n".utf8))
        let first = try reader.nextEvent()
        #expect(first == EventMessage(id: "1", event: "tap", data: "{\"a\":\n1}"))
        #expect(try reader.nextEvent() == EventMessage(id: "2", data: "x"))
        // With nothing sent, the heartbeats still come, as comments.
        let beat = try reader.next(within: 5)
        #expect(beat.comment)
        stream.finish()
        #expect(reader.endsWithin(seconds: 10))
        #expect(throws: HTTPClient.Failure.self) { try reader.nextEvent() }
    }

    @Test func nothingWithinTheWaitIsAFailureNotAHang() throws {
        let server = try EchoServer()
        let reader = try HTTPClient(port: server.port).stream("/stream")
        let started = ProcessInfo.processInfo.systemUptime
        let failure = #expect(throws: HTTPClient.Failure.self) { try reader.next(within: 0.3) }
        #expect(failure?.description == "nothing on the stream within 0.3 s")
        #expect(ProcessInfo.processInfo.systemUptime - started >= 0.25)
        #expect(!reader.endsWithin(seconds: 0.1))
    }

    @Test func closingTheReaderHangsUp() throws {
        let server = try EchoServer()
        let reader = try HTTPClient(port: server.port).stream("/stream")
        let stream = try #require(server.stream())
        #expect(stream.send(Array(": hello\n\n".utf8)))
        #expect(try reader.next().comment)
        reader.close()
        // The server learns the client left: a send to a gone client says false.
        var open = true
        for _ in 0..<500 where open {
            open = stream.send(Array(": ping\n\n".utf8))
            if open { usleep(10_000) }
        }
        #expect(!open, "the server never saw the reader hang up")
    }

    @Test func aStreamThatIsRefusedAnswersAtOnce() throws {
        let server = try EchoServer()
        let reader = try HTTPClient(port: server.port).stream("/status/404")
        #expect(reader.status == 404)
        #expect(reader.endsWithin(seconds: 10))
    }

    @Test func followCallsBackForEveryBlockUntilTheServerEnds() throws {
        let server = try EchoServer()
        let writer = Thread {
            guard let stream = server.stream() else { return }
            for i in 1...5 { stream.send(Array("id: \(i)\ndata: \(i * i)\n\n".utf8)) }
            stream.finish()
        }
        writer.start()
        let seen = Mutex<[EventMessage]>([])
        let status = try HTTPClient(port: server.port).follow("/stream") { message in seen.withLock { $0.append(message) } }
        #expect(status == 200)
        #expect(seen.withLock { $0 }.map(\.data) == ["1", "4", "9", "16", "25"])
        let refused = try HTTPClient(port: server.port).follow("/refuse") { _ in }
        #expect(refused == 409)
    }
}
