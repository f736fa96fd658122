import Foundation
import JSON
import Testing
import TestSupport

/// An idle event stream on a plain HTTP/1.1 connection gets its events written to the socket
/// by the thread that publishes them, as the chunks libmicrohttpd itself would write; other
/// streams (HTTP/1.0, TLS, a backlog) go through libmicrohttpd. Read here byte by byte, as a
/// strict client would, whichever path each chunk took.
@Suite("Event stream framing")
struct StreamFramingTests {
    /// The SSE messages in `text`: each one's `id:` and the `seq` of its JSON.
    private static func events(_ text: String) throws -> [(id: Int, seq: Int64)] {
        try text.components(separatedBy: "\n\n").compactMap { block -> (Int, Int64)? in
            let lines = block.split(separator: "\n")
            guard let idLine = lines.first(where: { $0.hasPrefix("id: ") }),
                let dataLine = lines.first(where: { $0.hasPrefix("data: ") })
            else { return nil }
            let event = try JSONParser.parse(Array(dataLine.dropFirst(6).utf8))
            return (Int(idLine.dropFirst(4)) ?? -1, event["seq"]?.int ?? -1)
        }
    }

    /// A server with button `c`, and a stream opened on it with `request` (its head read).
    private static func openStream(_ request: String) throws -> (TestServer, RawConnection, [String: String]) {
        let server = try TestServer()
        try server.createButton(#"{"id": "c", "maxTaps": 1}"#)
        let connection = try RawConnection(port: server.app.port, timeoutSeconds: 10)
        try connection.write(Array(request.utf8))
        let (status, headers) = try connection.readHead()
        #expect(status == 200)
        return (server, connection, headers)
    }

    @Test func anHTTP11StreamIsWellFormedChunksInSeqOrder() throws {
        let (server, connection, headers) = try Self.openStream("GET /api/v1/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(headers["transfer-encoding"]?.lowercased() == "chunked")
        let presses = 50  // four events each: touch-down, touch-up-inside, tap, tap-series-end (maxTaps 1)
        var body = ""
        var seen: [(id: Int, seq: Int64)] = []
        for index in 0..<presses {
            try server.post("/api/v1/buttons/c/press", "{\"t\": \(1_700_000_000_000 + index * 1_000)}")
        }
        let expected = try server.client.get("/api/v1/events?after=0&limit=1000").json["events"]!.array.count
        #expect(expected >= presses * 3)
        while seen.count < expected {
            guard let chunk = try connection.readChunk() else { break }
            body += String(decoding: chunk, as: UTF8.self)
            seen = try Self.events(body)
        }
        #expect(seen.count == expected)
        #expect(seen.map(\.id) == Array(1...expected))
        #expect(seen.allSatisfy { Int64($0.id) == $0.seq })
        // Every chunk ended where an SSE message ends: nothing was split or spliced.
        #expect(body.hasSuffix("\n\n"))
    }

    @Test func anHTTP10StreamIsAPlainBodyUntilClose() throws {
        let (server, connection, headers) = try Self.openStream("GET /api/v1/events/stream HTTP/1.0\r\n\r\n")
        #expect(headers["transfer-encoding"] == nil)
        for index in 0..<10 {
            try server.post("/api/v1/buttons/c/press", "{\"t\": \(1_700_000_000_000 + index * 1_000)}")
        }
        let expected = try server.client.get("/api/v1/events?after=0").json["events"]!.array.count
        var lines: [String] = []
        var seen: [(id: Int, seq: Int64)] = []
        while seen.count < expected {
            lines.append(try connection.readLine())
            seen = try Self.events(lines.joined(separator: "\n") + "\n")
        }
        #expect(seen.map(\.id) == Array(1...expected))
        // No chunk sizes in an HTTP/1.0 body: every line is a field, a comment or blank.
        let sizes = lines.filter { !$0.isEmpty && $0.allSatisfy(\.isHexDigit) }
        #expect(sizes.isEmpty, "chunk sizes in an HTTP/1.0 body: \(sizes)")
    }
}
