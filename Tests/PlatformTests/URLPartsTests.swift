import Platform
import Testing

/// The one URL parser on every kind of URL its callers see: webhooks (placeholders, ports,
/// IPv6 literals and zones, user info), MQTT brokers (`@` and `:` in passwords, escapes), OSC
/// targets, public URLs and origins; and the two redactions built on it. CurlHTTPTests hold
/// the same parts to libcurl's `curl_url`.
@Suite struct URLPartsTests {
    struct Case: Sendable, CustomStringConvertible {
        var url: String
        var scheme: String
        var userInfo: String?
        var host: String
        var bracketed = false
        var port: String?
        var rest = ""
        var description: String { url }
    }

    static let cases: [Case] = [
        Case(url: "http://Example.COM/a/{button}", scheme: "http", host: "Example.COM", rest: "/a/{button}"),
        Case(url: "http://example.com", scheme: "http", host: "example.com"),
        Case(url: "https://example.com/x?y=1#z", scheme: "https", host: "example.com", rest: "/x?y=1#z"),
        Case(url: "http://example.com:8123/api", scheme: "http", host: "example.com", port: "8123", rest: "/api"),
        Case(url: "http://example.com:/x", scheme: "http", host: "example.com", port: "", rest: "/x"),
        Case(url: "http://10.0.0.5:1880#frag", scheme: "http", host: "10.0.0.5", port: "1880", rest: "#frag"),
        Case(url: "http://h?q=a@b:c", scheme: "http", host: "h", rest: "?q=a@b:c"),
        Case(url: "http://[::1]/x", scheme: "http", host: "::1", bracketed: true, rest: "/x"),
        Case(url: "http://[::1]:8080/x", scheme: "http", host: "::1", bracketed: true, port: "8080", rest: "/x"),
        Case(url: "https://[fe80::1%25eth0]", scheme: "https", host: "fe80::1%25eth0", bracketed: true),
        Case(url: "http://user@host:9/x", scheme: "http", userInfo: "user", host: "host", port: "9", rest: "/x"),
        Case(url: "https://a:b@h/p", scheme: "https", userInfo: "a:b", host: "h", rest: "/p"),
        Case(url: "MQTT://Broker_1", scheme: "MQTT", host: "Broker_1"),
        Case(url: "mqtts://broker.example.com:443/", scheme: "mqtts", host: "broker.example.com", port: "443", rest: "/"),
        Case(url: "mqtt://user:@h", scheme: "mqtt", userInfo: "user:", host: "h"),
        Case(url: "mqtt://us%20er:p%40ss%3A@h", scheme: "mqtt", userInfo: "us%20er:p%40ss%3A", host: "h"),
        // A raw `@` in a password: the host follows the last one.
        Case(url: "mqtt://u:p:q@s@h", scheme: "mqtt", userInfo: "u:p:q@s", host: "h"),
        Case(url: "mqtts://u:p@[fe80::1:2]:8884", scheme: "mqtts", userInfo: "u:p", host: "fe80::1:2", bracketed: true, port: "8884"),
        Case(url: "mqtt://[::ffff:10.0.0.1]:65535", scheme: "mqtt", host: "::ffff:10.0.0.1", bracketed: true, port: "65535"),
        Case(url: "osc.udp://127.0.0.1:9000", scheme: "osc.udp", host: "127.0.0.1", port: "9000"),
        Case(url: "osc.tcp://[::1]:9000/", scheme: "osc.tcp", host: "::1", bracketed: true, port: "9000", rest: "/"),
        // Unbracketed IPv6: the port follows the last colon.
        Case(url: "osc.udp://::1:9000", scheme: "osc.udp", host: "::1", port: "9000"),
        Case(url: "ws://h:1/x", scheme: "ws", host: "h", port: "1", rest: "/x"),
        // What callers refuse still comes apart, so they can say why.
        Case(url: "mqtt://[::1", scheme: "mqtt", host: "[::1"),
        Case(url: "mqtt://[::1]x", scheme: "mqtt", host: "::1", bracketed: true),
        Case(url: "mqtt://host:12ab", scheme: "mqtt", host: "host", port: "12ab"),
        Case(url: "mqtt://@host", scheme: "mqtt", userInfo: "", host: "host"),
        Case(url: "mqtt://", scheme: "mqtt", host: ""),
        Case(url: "mqtt:///", scheme: "mqtt", host: "", rest: "/"),
        Case(url: "a://b://c", scheme: "a", host: "b", port: "", rest: "//c"),
    ]

    @Test(arguments: cases)
    func takesTheURLApart(_ expected: Case) throws {
        let url = try #require(URLParts(expected.url))
        #expect(url.text == expected.url)
        #expect(url.scheme == expected.scheme)
        #expect(url.userInfo == expected.userInfo.map { Substring($0) })
        #expect(url.host == expected.host)
        #expect(url.isBracketed == expected.bracketed)
        #expect(url.port == expected.port.map { Substring($0) })
        #expect(url.rest == expected.rest)
        // The parts, put back together, are the text.
        #expect(url.head + url.rest == expected.url)
        let userInfo = url.userInfo.map { $0 + "@" } ?? ""
        #expect("\(url.scheme)://\(userInfo)\(url.authority)\(url.rest)" == expected.url)
        #expect(url.authority.hasSuffix(url.afterHost))
    }

    @Test(arguments: ["", "localhost", "mqtt:/host", "http:host", "/path?x=http://"])
    func withoutSchemeSeparatorIsNoURL(_ text: String) {
        // "/path?x=http://" has one, after a path: it is taken apart, but as no caller's scheme.
        if text.contains("://") {
            #expect(URLParts(text)?.isHTTP == false)
        } else {
            #expect(URLParts(text) == nil)
        }
    }

    @Test func userAndPasswordSplitAtTheFirstColon() throws {
        let url = try #require(URLParts("mqtt://u:p:q@s@h"))
        #expect(url.user == "u")
        #expect(url.password == "p:q@s")
        #expect(URLParts("mqtt://user@h")?.user == "user")
        #expect(URLParts("mqtt://user@h")?.password == nil)
        #expect(URLParts("mqtt://user:@h")?.password == "")
        #expect(URLParts("mqtt://h")?.user == nil)
    }

    @Test(arguments: [
        ("mqtt://h:1", 1), ("mqtt://h:65535", 65535), ("mqtt://[::1]:00080", 80),
        ("mqtt://h", nil), ("mqtt://h:", nil), ("mqtt://h:0", nil), ("mqtt://h:65536", nil), ("mqtt://h:000080", nil),
        ("mqtt://h:+80", nil), ("mqtt://h:-1", nil), ("mqtt://h:8a", nil), ("mqtt://[::1]x", nil),
    ] as [(String, Int?)])
    func portNumbersAreOneToFiveDigitsInRange(_ url: String, _ port: Int?) {
        #expect(URLParts(url)?.portNumber == port)
    }

    @Test(arguments: [
        ("http://a", true), ("HTTPS://a", true), ("Http://a", true), ("ws://a", false), ("httpx://a", false), ("http:///", true),
    ])
    func httpSchemesInAnyCase(_ url: String, _ isHTTP: Bool) {
        #expect(URLParts(url)?.isHTTP == isHTTP)
    }

    @Test func emptinessAfterTheScheme() {
        #expect(URLParts("http://")?.isEmptyAfterScheme == true)
        #expect(URLParts("http://@")?.isEmptyAfterScheme == false)
        #expect(URLParts("http:///")?.isEmptyAfterScheme == false)
        #expect(URLParts("http://h")?.isEmptyAfterScheme == false)
    }

    /// What a log or status report shows of a broker's URL: everything but the password,
    /// however many `@` and `:` it holds.
    @Test(arguments: [
        ("mqtt://user:secret@broker:1883", "mqtt://user:***@broker:1883"),
        ("mqtts://u:p:q@s@h", "mqtts://u:***@h"),
        ("mqtt://user:@h", "mqtt://user:***@h"),
        ("mqtt://user@h", "mqtt://user@h"),
        ("mqtt://h:1883", "mqtt://h:1883"),
        ("MQTT://u:p%40ss@[::1]:8883/", "MQTT://u:***@[::1]:8883/"),
        ("not a url", "not a url"),
    ])
    func passwordRedaction(_ url: String, _ redacted: String) {
        let shown = URLParts(url)?.passwordRedacted ?? url
        #expect(shown == redacted)
        #expect(!shown.contains("secret"))
    }

    /// What the press token sees of a webhook: where it points, never its user info, path,
    /// query or fragment.
    @Test(arguments: [
        ("https://hooks.slack.com/services/T000/B000/XXXX", "https://hooks.slack.com/***"),
        ("http://user:pw@host:8080/", "http://host:8080/"),
        ("http://user:p@ss@host", "http://host/"),
        ("http://host?token=1", "http://host/***"),
        ("http://host#f", "http://host/***"),
        ("http://[::1]:9/x", "http://[::1]:9/***"),
        ("HTTP://Host", "HTTP://Host/"),
    ])
    func originRedaction(_ url: String, _ shown: String) throws {
        #expect(try #require(URLParts(url)).originRedacted == shown)
    }
}
