import Foundation
import Testing
import TestSupport
import CurlHTTP
import Platform

/// Request smuggling (SPEC §6, framing is strict): each ambiguous request is 400, answered as
/// JSON, and its connection closed, so a request hidden behind it never runs.
@Suite("Strict framing: ambiguous requests are refused and closed")
struct FramingTests {
    /// A press hidden after the smuggling request: if it ran, the button would have events.
    static let hidden = "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n"

    static let cases: [(name: String, head: String)] = [
        ("two Content-Lengths", "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nContent-Length: \(hidden.utf8.count)\r\n\r\n"),
        ("Content-Length with chunked", "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        ("a space before the colon", "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n"),
        ("gzip coding", "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip\r\n\r\n0\r\n\r\n"),
        ("identity coding", "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: identity\r\n\r\n"),
        ("chunked, identity", "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n"),
        ("two codings headers", "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        ("a raw NUL in the target", "GET /api/v1/buttons/door\0/../../zzz HTTP/1.1\r\nHost: localhost\r\n\r\n"),
        ("a control byte in the target", "GET /api/v1/buttons/door\u{01} HTTP/1.1\r\nHost: localhost\r\n\r\n"),
        ("a space in the target", "GET /api/v1/buttons/door x HTTP/1.1\r\nHost: localhost\r\n\r\n"),
        ("HTTP/1.1 with no Host", "POST /api/v1/buttons/door/press HTTP/1.1\r\nContent-Length: 0\r\n\r\n"),
        ("a separator in a header name", "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nX-A@b: 1\r\nContent-Length: 0\r\n\r\n"),
        ("a DEL in a header name", "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nX-A\u{7F}: 1\r\nContent-Length: 0\r\n\r\n"),
        ("a control byte in a header value", "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nX-A: 1\u{01}2\r\nContent-Length: 0\r\n\r\n"),
        ("HTTP/1.1 with two Hosts", "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n"),
    ]

    @Test(arguments: cases.indices)
    func anAmbiguousRequestIs400AndClosed(index: Int) throws {
        let (name, head) = Self.cases[index]
        let server = try TestServer()
        try server.createButton(#"{"id": "door"}"#)
        let connection = try RawConnection(port: server.app.port, timeoutSeconds: 5)
        try connection.write(Array((head + Self.hidden).utf8))
        let reply = try connection.readReply()
        #expect(reply.status == 400, "\(name)")
        #expect(reply.json["error"]?["code"] == .string("bad_request"), "\(name): \(String(decoding: reply.body, as: UTF8.self))")
        #expect(reply.header("connection")?.lowercased() == "close", "\(name)")
        #expect(connection.closedWithin(seconds: 2), "\(name): the connection stays open")
        let events = try server.client.get("/api/v1/events?after=0").json["events"]?.array ?? []
        #expect(events.isEmpty, "\(name): the hidden request ran")
    }

    /// libmicrohttpd answers these itself (before buttond sees the request): an error status
    /// and a close, and the hidden request never runs.
    @Test(arguments: ["-1", "18446744073709551616", "1x"])
    func aLengthThatIsNoNumberIsRefusedAndClosed(length: String) throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "door"}"#)
        let connection = try RawConnection(port: server.app.port, timeoutSeconds: 5)
        let head = "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(length)\r\n\r\n"
        try connection.write(Array((head + Self.hidden).utf8))
        let reply = try connection.readReply(bodyless: true)
        #expect([400, 413].contains(reply.status))
        #expect(connection.closedWithin(seconds: 2))
        #expect((try server.client.get("/api/v1/events?after=0").json["events"]?.array ?? []).isEmpty)
    }

    /// What stays allowed: HTTP/1.0 without Host, chunked bodies, and two requests on one
    /// connection (each answered).
    @Test func ordinaryRequestsStillWork() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "door"}"#)
        let old = try RawConnection(port: server.app.port, timeoutSeconds: 5)
        try old.write(Array("GET /api/v1/buttons/door HTTP/1.0\r\n\r\n".utf8))
        #expect(try old.readReply().status == 200)
        let chunked = try RawConnection(port: server.app.port, timeoutSeconds: 5)
        try chunked.write(Array("POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n".utf8))
        #expect(try chunked.readReply().status == 200)
        try chunked.write(Array("GET /api/v1/buttons/door HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        let second = try chunked.readReply()
        #expect(second.status == 200)
        #expect(second.json["state"]?["tapCount"] == .int(1))
        // Every character a header name may hold, and a tab inside a value.
        let names = try RawConnection(port: server.app.port, timeoutSeconds: 5)
        try names.write(Array("GET /api/v1/buttons/door HTTP/1.1\r\nHost: localhost\r\nX!#$%&'*+-.^_`|~09azAZ: a\tb\r\n\r\n".utf8))
        #expect(try names.readReply().status == 200)
    }
}
