import Foundation
import Testing
import TestSupport

/// Requests too big to hold and clients too slow to wait for (issue 17): an answer or a
/// close at the deadline, never a connection held for ever.
@Suite("Request limits and slow clients")
struct RequestLimitTests {
    /// More than 100 parameters, or fewer but long ones (libmicrohttpd's pool ran out: the client
    /// got nothing until the header deadline). SPEC §6: an error status and a close, never a hang.
    @Test(arguments: [
        (101, 1, "too_many_parameters"), (600, 1, "too_many_parameters"), (2_000, 1, "too_many_parameters"),
        (60, 480, "query_too_long"), (90, 300, "query_too_long"), (100, 270, "query_too_long"),
    ])
    func aQueryTooBigToHoldGetsAnAnswerAndAClose(count: Int, length: Int, code: String) throws {
        let server = try TestServer()
        let query = (0..<count).map { "p\($0)=" + String(repeating: "v", count: length) }.joined(separator: "&")
        let connection = try RawConnection(host: "127.0.0.1", port: server.app.port, timeoutSeconds: 10)
        try connection.write(Array("GET /api/v1/buttons?\(query) HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        let reply = try connection.readReply()
        #expect(reply.status == 414)
        #expect(reply.json["error"]?["code"] == .string(code))
        #expect(reply.header("connection")?.lowercased() == "close")
        // A request with a handful still works.
        #expect(try server.client.get("/api/v1/events?limit=5&after=0").status == 200)
    }

    /// Opens a connection, writes `opening`, then one `more(i)` a second: whether the server
    /// closed it within `seconds`.
    static func cutOffWithin(seconds: Double, server: TestServer, opening: String, more: (Int) -> String) throws -> Bool {
        let slow = try RawConnection(port: server.app.port)
        try slow.write(Array(opening.utf8))
        let started = Date()
        for i in 0..<8 {
            try? slow.write(Array(more(i).utf8))
            if slow.closedWithin(seconds: 1) { return Date().timeIntervalSince(started) < seconds }
        }
        return false
    }

    /// The deadline covers the body too: a client that sends a whole head and then a body byte
    /// a second would otherwise hold its connection for ever (the idle timeout restarts).
    @Test func aBodyThatTricklesInIsCutOffAtTheDeadline() throws {
        let server = try TestServer { $0.http.requestDeadlineSeconds = 2 }
        try server.createButton(#"{"id": "door"}"#)
        let head = "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nContent-Length: 600\r\n\r\n{"
        #expect(try Self.cutOffWithin(seconds: 5, server: server, opening: head) { _ in " " })
        #expect((try server.client.get("/api/v1/events?after=0").json["events"]?.array ?? []).isEmpty)
        #expect(try server.post("/api/v1/buttons/door/press").status == 200)
    }

    @Test func aRequestHeadThatTricklesInIsCutOffAtTheDeadline() throws {
        let server = try TestServer { $0.http.requestDeadlineSeconds = 2 }
        // One header line a second: the idle timeout (30 s) alone would never fire.
        #expect(try Self.cutOffWithin(seconds: 5, server: server, opening: "GET /healthz HTTP/1.1\r\n") { "X-Slow-\($0): y\r\n" })
        // A stream that is being answered is not cut off, nor is an ordinary request.
        try server.createButton(#"{"id": "door"}"#)
        let stream = try server.client.stream("/api/v1/events/stream")
        #expect(stream.status == 200)
        Thread.sleep(forTimeInterval: 3)
        _ = try server.post("/api/v1/buttons/door/down")
        #expect(try stream.nextEvent().id == "1")
        #expect(try server.client.get("/healthz").status == 200)
    }
}
