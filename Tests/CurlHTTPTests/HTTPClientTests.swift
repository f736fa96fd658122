import MicroHTTP
import Platform
import Testing

@testable import CurlHTTP

/// The one HTTP client (libcurl) against a real server on port 0: what it sends, what it
/// reads back, and how it fails.
@Suite struct HTTPClientTests {
    @Test func aRequestArrivesWithItsMethodPathBodyAndHeaders() throws {
        let server = try EchoServer()
        let client = HTTPClient(port: server.port, token: "t0k3n")
        for method in ["POST", "PUT", "PATCH", "DELETE"] {
            let reply = try client.request(method, "/echo", json: #"{"a": 1}"#, headers: ["X-One": "1", "X-Empty": ""])
            #expect(reply.status == 200)
            let seen = reply.json
            #expect(seen["method"] == .string(method))
            #expect(seen["path"] == "/echo")
            #expect(seen["body"] == #"{"a": 1}"#)
            #expect(seen["headers"]?["authorization"] == "Bearer t0k3n")
            #expect(seen["headers"]?["content-type"] == "application/json")
            #expect(seen["headers"]?["x-one"] == "1")
            #expect(seen["headers"]?["x-empty"] == "", "an empty value is sent empty, not dropped")
            #expect(seen["headers"]?["expect"] == nil, "no Expect: 100-continue unless asked for")
        }
        // The caller's own Authorization and Content-Type win; no body, no content type.
        let own = try client.request("POST", "/echo", body: Array("{}".utf8), headers: ["authorization": "Bearer other", "Content-Type": "application/x-www-form-urlencoded"])
        #expect(own.json["headers"]?["authorization"] == "Bearer other")
        #expect(own.json["headers"]?["content-type"] == "application/x-www-form-urlencoded")
        let bare = try HTTPClient(port: server.port).get("/echo")
        #expect(bare.json["method"] == "GET")
        #expect(bare.json["headers"]?["authorization"] == nil)
        #expect(bare.json["headers"]?["content-type"] == nil)
    }

    @Test func theReplyCarriesStatusHeadersAndBody() throws {
        let server = try EchoServer()
        let client = HTTPClient(port: server.port)
        for code in [200, 201, 404, 418, 503] {
            let reply = try client.get("/status/\(code)")
            #expect(reply.status == code)
            #expect(reply.text == "status body")
            #expect(reply.header("X-ANSWER") == "spaced", "names in lower case, the value trimmed")
        }
        let refused = try client.get("/refuse")
        #expect(refused.status == 409)
        #expect(refused.errorCode == "busy")
        #expect(refused.json["error"]?["message"] == "it is busy")
        let head = try client.request("HEAD", "/status/200")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(try client.get("/status/204").errorCode == nil)
    }

    @Test func aServerOnAnIPv6Literal() throws {
        let server = try EchoServer(host: "::1")
        let client = HTTPClient(host: "::1", port: server.port)
        #expect(client.base == "http://[::1]:\(server.port)")
        #expect(try client.get("/echo").json["method"] == "GET")
        #expect(HTTPClient(base: "https://example.test:8443/").base == "https://example.test:8443")
    }

    @Test func noServerIsAFailureThatNamesTheBase() throws {
        // A port that was just free: nothing listens there.
        let port = try Self.listeningSocket { _ in }
        let failure = #expect(throws: HTTPClient.Failure.self) { try HTTPClient(port: port).get("/") }
        #expect(failure?.description.contains("cannot reach http://127.0.0.1:\(port)") == true, "\(String(describing: failure))")
    }

    /// A server that takes the connection and never answers: the client gives up at its timeout.
    @Test func aSilentServerTimesOut() throws {
        var started = 0.0
        var elapsed = 0.0
        _ = try Self.listeningSocket { port in
            var client = HTTPClient(port: port)
            client.timeoutSeconds = 1
            started = Clock.system.monotonic()
            #expect(throws: HTTPClient.Failure.self) { try client.get("/") }
            elapsed = Clock.system.monotonic() - started
        }
        #expect(elapsed >= 0.9 && elapsed < 10, "gave up after \(elapsed) s")
    }

    /// A socket listening on 127.0.0.1 (port 0) that accepts nothing while `body(port)` runs;
    /// returns the port, closed by then.
    static func listeningSocket(_ body: (Int) throws -> Void) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(fd, 8) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        try body(port)
        return port
    }

    @Test func headerLinesAreSortedWithTheTokenAndNoExpect() {
        #expect(Transfer.headerLines(["X-B": "2", "X-A": "1"], token: "k", hasBody: true)
            == ["Authorization: Bearer k", "Content-Type: application/json", "Expect: ", "X-A: 1", "X-B: 2"])
        #expect(Transfer.headerLines([:], token: nil, hasBody: false) == ["Expect: "])
        #expect(Transfer.headerLines(["AUTHORIZATION": "Basic x", "expect": "100-continue", "X-Empty": ""], token: "k", hasBody: false)
            == ["AUTHORIZATION: Basic x", "X-Empty;", "expect: 100-continue"])
    }
}
