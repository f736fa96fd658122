import Testing

@testable import CurlHTTP

/// The response reader alone, as a value: where each kind of answer ends, what it keeps, and
/// what it refuses, whatever the pieces the bytes arrive in.
@Suite struct ResponseReaderTests {
    struct Case: Sendable, CustomStringConvertible {
        let bytes: String
        let status: Int
        let body: String
        let keepAlive: Bool
        /// The connection's end comes after the bytes.
        var closed = false
        var description: String { bytes.prefix(40).debugDescription }
    }

    static let cases: [Case] = [
        Case(bytes: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", status: 200, body: "hello", keepAlive: true),
        Case(bytes: "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", status: 204, body: "", keepAlive: true),
        Case(bytes: "HTTP/1.1 304 Not Modified\r\n\r\n", status: 304, body: "", keepAlive: true),
        Case(bytes: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", status: 200, body: "", keepAlive: true),
        Case(bytes: "HTTP/1.1 500 Oops\r\nConnection: keep-alive, close\r\nContent-Length: 2\r\n\r\nno", status: 500, body: "no", keepAlive: false),
        Case(bytes: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", status: 200, body: "ok", keepAlive: false),
        Case(bytes: "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok", status: 200, body: "ok", keepAlive: true),
        Case(bytes: "HTTP/1.1 200 OK\r\n\r\nto the end", status: 200, body: "to the end", keepAlive: false, closed: true),
        Case(bytes: "HTTP/1.1 200 OK\nContent-Length: 3\n\nbare", status: 200, body: "bar", keepAlive: false),
        Case(
            bytes: "HTTP/1.1 200 OK\r\nTRANSFER-ENCODING: Chunked\r\n\r\n3\r\nabc\r\n1a; x=\"y\"\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\n\r\n",
            status: 200, body: "abcabcdefghijklmnopqrstuvwxyz", keepAlive: true),
        Case(bytes: "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early\r\nLink: x\r\n\r\nHTTP/1.1 201 Made\r\nContent-Length: 1\r\n\r\n!", status: 201, body: "!", keepAlive: true),
    ]

    /// Each answer read whole, then cut at every place into two pieces: the same status, body
    /// and end. (The bare-LF answer has one byte more than its length: the connection is not kept.)
    @Test(arguments: cases)
    func everySplitReadsTheSame(_ answer: Case) {
        let bytes = Array(answer.bytes.utf8)
        for cut in 0...bytes.count {
            var reader = ResponseReader()
            var progress = bytes[..<cut].withUnsafeBytes { reader.take($0) }
            // Bytes after a whole answer still come to the reader (they came in the same read).
            if progress == .more || cut < bytes.count { progress = bytes[cut...].withUnsafeBytes { reader.take($0) } }
            if answer.closed {
                #expect(progress == .more)
                progress = reader.end()
            }
            #expect(progress == .done(keepAlive: answer.keepAlive), "cut at \(cut)")
            #expect(reader.status == answer.status)
            #expect(String(decoding: reader.body, as: UTF8.self) == answer.body, "cut at \(cut)")
        }
    }

    @Test func headersAreKeptByNameInLowerCaseTheLastOfARepeat() {
        var reader = ResponseReader(keptHeaders: ["retry-after", "x-b"])
        let head = "HTTP/1.1 429 Slow\r\nRetry-After:  120 \r\nX-A: a\r\nx-b: 1\r\nX-B: 2\r\nContent-Length: 0\r\n\r\n"
        #expect(Array(head.utf8).withUnsafeBytes { reader.take($0) } == .done(keepAlive: true))
        #expect(reader.headers == ["retry-after": "120", "x-b": "2"])
        var all = ResponseReader()
        _ = Array(head.utf8).withUnsafeBytes { all.take($0) }
        #expect(all.headers.count == 4)
    }

    @Test func theBodyIsKeptUpToItsLimitAndReadToItsEnd() {
        var reader = ResponseReader(bodyLimit: 3)
        let bytes = Array("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n12345678".utf8)
        #expect(bytes.withUnsafeBytes { reader.take($0) } == .done(keepAlive: true))
        #expect(reader.body == Array("123".utf8))
    }

    @Test(arguments: [
        ("", ResponseReader.Progress.failed(.gotNothing)),
        ("HTTP/1.1 200 OK\r\nContent-Le", .failed(.receive)),
        ("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort", .failed(.partial)),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", .failed(.partial)),
    ])
    func anAnswerCutShort(_ bytes: String, _ expected: ResponseReader.Progress) {
        var reader = ResponseReader()
        #expect(Array(bytes.utf8).withUnsafeBytes { reader.take($0) } == .more)
        #expect(reader.end() == expected)
    }

    @Test(arguments: [
        "SSH-2.0-OpenSSH\r\n\r\n",
        "HTTP/2 200\r\n\r\n",
        "HTTP/1.1 20 OK\r\n\r\n",
        "HTTP/1.1 2000 OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\naXY",
    ])
    func notAnHTTPAnswer(_ bytes: String) {
        var reader = ResponseReader()
        #expect(Array(bytes.utf8).withUnsafeBytes { reader.take($0) } == .failed(.weirdReply))
    }

    @Test func aHeadPastLibcurlsLimitIsRefused() {
        var reader = ResponseReader()
        let line = Array("X-Filler: \(String(repeating: "x", count: 1000))\r\n".utf8)
        #expect(Array("HTTP/1.1 200 OK\r\n".utf8).withUnsafeBytes { reader.take($0) } == .more)
        var progress = ResponseReader.Progress.more
        for _ in 0..<200 where progress == .more { progress = line.withUnsafeBytes { reader.take($0) } }
        #expect(progress == .failed(.tooLargeHead))
    }

    /// Bytes after a whole answer were asked by nobody: the connection is not kept.
    @Test func bytesAfterTheAnswerEndTheConnection() {
        var reader = ResponseReader()
        let bytes = Array("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n1HTTP/1.1".utf8)
        #expect(bytes.withUnsafeBytes { reader.take($0) } == .done(keepAlive: false))
    }
}
