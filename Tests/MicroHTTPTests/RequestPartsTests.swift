import Testing

@testable import MicroHTTP

/// The parts of a request the server reads as bytes (headers, path segments, the Host check)
/// answer as the strings they replaced did.
@Suite struct RequestPartsTests {
    /// A header is found by its lower-case name; the last of a repeated one wins, as in the
    /// dictionary the headers were kept in before; an empty value is there.
    @Test func headersAreFoundByLowerCaseName() {
        let headers: Headers = [
            "Host": "127.0.0.1:8080", "content-type": "application/json", "x-twice": "1", "X-Twice": "2", "x-empty": "",
            "x-utf8": "grün",
        ]
        #expect(headers["host"] == "127.0.0.1:8080")
        #expect(headers["content-type"] == "application/json")
        #expect(headers["x-twice"] == "2")
        #expect(headers["x-empty"] == "")
        #expect(headers["x-utf8"] == "grün")
        #expect(headers["x"] == nil)
        #expect(headers["content-typ"] == nil)
        #expect(headers["host "] == nil)
        #expect(Request(method: "GET", path: "/", headers: headers).header("Content-Type") == "application/json")
        #expect(headers.all.map(\.name) == ["host", "content-type", "x-twice", "x-twice", "x-empty", "x-utf8"])
        #expect(headers.all.map(\.value) == ["127.0.0.1:8080", "application/json", "1", "2", "", "grün"])
        let none: Headers = [:]
        #expect(none["host"] == nil)
        #expect(none.all.isEmpty)
    }

    /// The segments are those of splitting the path's string on `/`, empty ones left out.
    @Test func pathSegmentsAreThePathSplitOnSlashes() {
        for path in ["/", "", "/a", "/api/v1/buttons/b7/press", "//a//b/", "/é/grün/", "a/b"] {
            let segments = PathSegments(path)
            #expect((0..<segments.count).map(segments.string) == path.split(separator: "/").map(String.init), "\(path)")
        }
        let segments = PathSegments("/api/v1")
        #expect(segments.segment(0, equals: Array("api".utf8)))
        #expect(!segments.segment(0, equals: Array("ap".utf8)))
        #expect(!segments.segment(1, equals: Array("v2".utf8)))
    }

    /// `127.0.0.1` and `localhost`, alone or with a port of one to five digits, and nothing else.
    @Test func loopbackHostsAreRecognizedOnTheirBytes() {
        for host in ["127.0.0.1", "127.0.0.1:8080", "localhost", "localhost:1", "127.0.0.1:65535"] {
            #expect(RequestGate.isLoopback(host: host), "\(host)")
        }
        for host in ["", "127.0.0", "127.0.0.10", "127.0.0.1:", "127.0.0.1:123456", "127.0.0.1:8a", "localhostx", "LOCALHOST", "::1"] {
            #expect(!RequestGate.isLoopback(host: host), "\(host)")
        }
    }
}
