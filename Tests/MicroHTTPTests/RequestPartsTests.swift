import Platform
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
        #expect(!none.value(of: "content-type", is: "application/json"))
    }

    /// A header's value compared in place answers as comparing its string does: exactly, the
    /// last of a repeated one, an empty value only with an empty one.
    @Test func headerValuesCompareInPlace() {
        let headers: Headers = [
            "Content-Type": "application/json", "x-twice": "1", "X-Twice": "2", "x-empty": "", "x-long": "application/jsonx",
        ]
        for (name, value) in [("content-type", "application/json"), ("x-twice", "2"), ("x-empty", "")] {
            #expect(headers.value(of: name, is: "application/json") == (headers[name] == "application/json"), "\(name)")
            #expect(headers[name] == value)
        }
        #expect(headers.value(of: "content-type", is: "application/json"))
        #expect(headers.value(of: "x-twice", is: "2") && !headers.value(of: "x-twice", is: "1"))
        #expect(headers.value(of: "x-empty", is: "") && !headers.value(of: "x-long", is: ""))
        #expect(!headers.value(of: "x-long", is: "application/json"), "a longer value is another")
        #expect(!headers.value(of: "content-type", is: "application/jso"), "so is a shorter one")
        #expect(!headers.value(of: "content-type", is: "Application/JSON"), "values compare exactly")
        #expect(!headers.value(of: "x-absent", is: ""))
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
        for host in [
            "", "127.0.0", "127.0.0.10", "127.0.0.1:", "127.0.0.1:123456", "127.0.0.1:8a", "localhostx", "LOCALHOST", "::1",
            "127.0.0.1:65536", "127.0.0.1:99999", "127.0.0.1:8080, evil.example",
        ] {
            #expect(!RequestGate.isLoopback(host: host), "\(host)")
        }
    }

    /// A `Host` is `uri-host[:port]` and nothing more (SPEC §6): what a proxy might read
    /// another way is refused.
    @Test func hostsAreHostAndPortOnly() {
        for host in [
            "localhost", "example.org", "Example.ORG:443", "a-b_c~d.local.", "10.0.0.1", "10.0.0.1:8080", "[::1]",
            "[::1]:8080", "[fe80::1]:65535", "xn--bcher-kva.example",
        ] {
            #expect(RequestGate.isHostAndPort(host), "\(host)")
        }
        for host in [
            "", ":80", "[::1]evil.example", "[::1", "[::1]:", "[not-v6]", "127.0.0.1:8080, evil.example", "a b", "a,b",
            "evil/example", "host:", "host:0x50", "host:65536", "host:123456", "a:1:2", "user@host", "hôte.example", "a\tb",
        ] {
            #expect(!RequestGate.isHostAndPort(host), "\(host)")
        }
    }

    /// `--trusted-proxy` ranges: addresses and CIDRs of either family, IPv4 matched as IPv4-mapped.
    @Test func addressRangesParseAndMatch() throws {
        let lan = try #require(AddressRange("10.1.0.0/16"))
        #expect(lan.contains(IPAddress("10.1.200.3")!))
        #expect(!lan.contains(IPAddress("10.2.0.1")!))
        #expect(!lan.contains(IPAddress("::1")!))
        let one = try #require(AddressRange("127.0.0.2"))
        #expect(one.contains(IPAddress("127.0.0.2")!) && !one.contains(IPAddress("127.0.0.3")!))
        let v6 = try #require(AddressRange("fd00::/8"))
        #expect(v6.contains(IPAddress("fd12::1")!) && !v6.contains(IPAddress("fe80::1")!))
        #expect(try #require(AddressRange("0.0.0.0/0")).contains(IPAddress("203.0.113.1")!))
        for bad in ["", "example.org", "10.0.0.0/33", "::1/129", "10.0.0.1/", "10.0.0.1/x", "10.0.0.1/-1", "/8"] {
            #expect(AddressRange(bad) == nil, "\(bad)")
        }
    }
}
