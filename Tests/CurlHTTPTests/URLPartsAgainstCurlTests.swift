import CCurl
import Platform
import Testing

/// Platform's `URLParts` against libcurl's `curl_url` on the URLs buttond's callers see and
/// curl reads too: the same scheme, user, password, host, port and path, query and fragment.
/// (A raw `@` in a password and an unbracketed IPv6 host, which curl refuses, are in
/// PlatformTests' table only.)
@Suite struct URLPartsAgainstCurlTests {
    /// What `curl_url` makes of `text`, nil when it refuses it.
    struct CurlParts: Equatable {
        var scheme: String
        var user: String?
        var password: String?
        var host: String
        var port: Int?
        var rest: String

        init?(_ text: String) {
            guard let handle = curl_url() else { return nil }
            defer { curl_url_cleanup(handle) }
            guard curl_url_set(handle, CURLUPART_URL, text, UInt32(CURLU_NON_SUPPORT_SCHEME)) == CURLUE_OK else { return nil }
            func part(_ which: CURLUPart) -> String? {
                var value: UnsafeMutablePointer<CChar>?
                guard curl_url_get(handle, which, &value, 0) == CURLUE_OK, let value else { return nil }
                defer { curl_free(value) }
                return String(cString: value)
            }
            scheme = part(CURLUPART_SCHEME) ?? ""
            user = part(CURLUPART_USER)
            password = part(CURLUPART_PASSWORD)
            // curl gives an IPv6 literal in its brackets and its zone apart.
            var host = part(CURLUPART_HOST) ?? ""
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            if let zone = part(CURLUPART_ZONEID) { host += "%25" + zone }
            self.host = host
            port = part(CURLUPART_PORT).flatMap { Int($0) }
            rest = (part(CURLUPART_PATH) ?? "") + (part(CURLUPART_QUERY).map { "?" + $0 } ?? "")
                + (part(CURLUPART_FRAGMENT).map { "#" + $0 } ?? "")
        }

        init(_ url: URLParts) {
            scheme = url.scheme.lowercased()
            user = url.user.map(String.init)
            password = url.password.map(String.init)
            host = String(url.host)
            port = url.portNumber
            // curl's path is at least `/`.
            rest = url.rest.first == "/" ? String(url.rest) : "/" + url.rest
        }
    }

    @Test(arguments: [
        "http://Example.COM/a/{button}", "http://example.com", "https://example.com/x?y=1#z", "http://example.com:8123/api",
        "http://example.com:/x", "http://10.0.0.5:1880#frag", "http://h?q=a", "http://[::1]/x", "http://[::1]:8080/x",
        "https://[fe80::1%25eth0]", "http://user@host:9/x", "https://a:b@h/p", "MQTT://Broker_1", "mqtts://broker.example.com:443/",
        "mqtt://user:@h", "mqtt://us%20er:p%40ss%3A@h", "mqtts://u:p@[fe80::1:2]:8884", "mqtt://[::ffff:10.0.0.1]:65535",
        "osc.udp://127.0.0.1:9000", "osc.tcp://[::1]:9000/", "ws://h:1/x", "http://ha.local:8123/scene/{option}?label={option_label}",
    ])
    func theSamePartsAsCurl(_ text: String) throws {
        let curl = try #require(CurlParts(text), "curl_url refuses \(text)")
        let ours = try #require(URLParts(text))
        #expect(CurlParts(ours) == curl)
    }

    /// What curl refuses, the callers refuse too, by the parts: a port out of range or not a
    /// number, an IPv6 literal left open.
    @Test(arguments: ["mqtt://h:65536", "mqtt://h:12ab", "http://[::1"])
    func whatCurlRefusesHasNoGoodPort(_ text: String) throws {
        #expect(CurlParts(text) == nil)
        let ours = try #require(URLParts(text))
        #expect(ours.portNumber == nil)
    }
}
