import Testing

@testable import CurlHTTP

/// Which requests `PlainHTTP` sends itself and which go to libcurl, and the request target
/// it writes.
@Suite struct PlainRequestTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080/hook", "/hook"),
        ("http://10.0.0.7/api/webhook/abc?x=1&y=%2F", "/api/webhook/abc?x=1&y=%2F"),
        ("http://[::1]:9000/x?y=1#fragment", "/x?y=1"),
        ("http://192.168.1.20:8080", "/"),
        ("http://192.168.1.20:8080?only=query", "/?only=query"),
        ("http://127.0.0.1:1/a/.b/..c/", "/a/.b/..c/"),
    ])
    func takenWithItsTarget(_ url: String, _ target: String) throws {
        let request = try #require(PlainRequest(HTTPRequest(method: "POST", url: url, body: [])))
        let line = String(decoding: request.bytes.prefix { $0 != 13 }, as: UTF8.self)
        #expect(line == "POST \(target) HTTP/1.1")
    }

    @Test func theEndpointIsTheLiteralAndItsPort() throws {
        let v4 = try #require(PlainRequest(HTTPRequest(method: "GET", url: "http://10.1.2.3/")))
        #expect(v4.endpoint == PlainRequest.Endpoint(address: [10, 1, 2, 3], port: 80))
        let v6 = try #require(PlainRequest(HTTPRequest(method: "GET", url: "http://[fe80::1]:81/")))
        #expect(v6.endpoint == PlainRequest.Endpoint(address: [0xFE, 0x80] + Array(repeating: 0, count: 13) + [1], port: 81))
        #expect(String(decoding: v6.bytes, as: UTF8.self).contains("\r\nHost: [fe80::1]:81\r\n"))
    }

    /// What libcurl would send otherwise (resolve, encrypt, squash, authenticate) is its.
    @Test(arguments: [
        "https://127.0.0.1/hook",
        "HTTP://127.0.0.1/hook",
        "http://localhost:8080/hook",
        "http://example.test/hook",
        "http://127.1/hook",
        "http://user:secret@127.0.0.1/hook",
        "http://127.0.0.1:0/hook",
        "http://127.0.0.1:/hook",
        "http://127.0.0.1:65536/hook",
        "http://[::1%25lo]:80/hook",
        "http://[::1]x/hook",
        "http://127.0.0.1/a/../b",
        "http://127.0.0.1/a/./b",
        "http://127.0.0.1/..",
        "http://127.0.0.1/a b",
        "http://127.0.0.1/é",
        "http://127.0.0.1/a\\b",
        "http://127.0.0.1/{button}",
    ])
    func leftToLibcurl(_ url: String) {
        #expect(PlainRequest(HTTPRequest(method: "POST", url: url, body: [])) == nil)
    }

    @Test func onlyAWebhooksMethodsAndHeaderLinesLibcurlReadsTheSame() {
        #expect(PlainRequest(HTTPRequest(method: "HEAD", url: "http://127.0.0.1/")) == nil)
        #expect(PlainRequest(HTTPRequest(method: "OPTIONS", url: "http://127.0.0.1/")) == nil)
        #expect(PlainRequest(HTTPRequest(method: "GET", url: "http://127.0.0.1/", headerLines: ["No colon"])) == nil)
        #expect(PlainRequest(HTTPRequest(method: "GET", url: "http://127.0.0.1/", headerLines: ["Bad Name: x"])) == nil)
        #expect(PlainRequest(HTTPRequest(method: "GET", url: "http://127.0.0.1/", headerLines: ["X-Semi; value"])) == nil)
        #expect(PlainRequest(HTTPRequest(method: "GET", url: "http://127.0.0.1/", headerLines: ["X: a\r\nY: b"])) == nil)
        #expect(PlainRequest(HTTPRequest(method: "GET", url: "http://127.0.0.1/", headerLines: ["X-Ok: a:b;c"])) != nil)
    }
}
