import ThreadSupport
import Platform

/// Who may reach the server through a browser (SPEC §6, "the browser is not a way in"): a
/// `Host` must be a name or address the server answers to (DNS rebinding), and an `Origin`,
/// when a browser sends one, must be the server's own or one allowed by name. A request with
/// neither (curl, scripts, the CLI) passes as it always did.
public struct RequestGate: Sendable {
    /// Host names allowed besides loopback, this machine's names and addresses and the bound
    /// address (`--allow-host`, `--public-url`'s host); `*.example.org` allows its subdomains.
    public var allowedHosts: [String] = []
    /// Origins allowed besides the server's own (`--allow-origin`), as `scheme://host[:port]`.
    public var allowedOrigins: [String] = []
    /// Off: every Host and Origin passes (only tests of other things turn it off).
    public var enabled = true
    /// This machine's names and addresses, read by this gate (and its copies) alone.
    private let localNames = LocalNames()

    public init() {}

    /// The refusal for a request, or nil when it may go on (`clock`: when this machine's
    /// addresses were last read).
    func refusal(host: String?, origin: String?, boundHost: String, tls: Bool, clock: Clock) -> HTTPError? {
        guard enabled else { return nil }
        if let host, !Self.isLoopback(host: host), !Self.isHostAndPort(host) {
            return HTTPError(
                421, code: "host_refused", message: "the Host header is not a host[:port]: '\(host)'")
        }
        if let host, !Self.isLoopback(host: host), !answers(to: Self.name(ofHost: host), boundHost: boundHost, clock: clock) {
            return HTTPError(
                421, code: "host_refused",
                message: "this server does not answer to the host '\(host)': start it with --allow-host NAME (or --public-url URL) to allow it")
        }
        guard let origin else { return nil }
        let given = Self.normalized(origin: origin)
        if let host, given == Self.normalized(origin: (tls ? "https://" : "http://") + host) { return nil }
        if crossOrigin(origin) != nil { return nil }
        return HTTPError(
            403, code: "origin_refused",
            message: "requests from the web page at '\(origin)' are refused: start buttond with --allow-origin \(origin) to allow it")
    }

    /// An `Origin` allowed by name (`--allow-origin`, not the server's own): its answers carry
    /// `Access-Control-Allow-Origin`, so the page there can read them, and its preflights
    /// (`OPTIONS` with `Access-Control-Request-Method`) are answered before any token is asked.
    func crossOrigin(_ origin: String?) -> String? {
        guard let origin, !allowedOrigins.isEmpty else { return nil }
        let given = Self.normalized(origin: origin)
        return allowedOrigins.contains { Self.normalized(origin: $0) == given } ? origin : nil
    }

    /// The answer to an allowed origin's preflight: what it may send (a token, a JSON body,
    /// a stream's `Last-Event-ID`) with every method the API has.
    static let preflightHeaders: [(String, String)] = [
        ("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE"),
        ("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID"),
        ("Access-Control-Max-Age", "600"),
    ]

    /// Whether `name` (lower-cased, no port, IPv6 without brackets) is one this server answers to.
    func answers(to name: String, boundHost: String, clock: Clock) -> Bool {
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        if let address = IPAddress(name) {
            if address.isLoopback || address == IPAddress(boundHost) { return true }
            return localNames.has(address, clock: clock)
        }
        if name == boundHost.lowercased() || localNames.names.contains(name) { return true }
        return allowedHosts.contains { allowed in
            let pattern = allowed.lowercased()
            return pattern.hasPrefix("*.") ? name.hasSuffix(pattern.dropFirst()) : name == pattern
        }
    }

    /// `127.0.0.1` or `localhost`, with a port or none: what nearly every request on the
    /// default bind carries, answered without lower-casing and parsing it (the press path).
    static func isLoopback(host: String) -> Bool {
        var host = host
        return host.withUTF8 { bytes in
            guard starts(bytes, with: "127.0.0.1") || starts(bytes, with: "localhost") else { return false }
            let rest = bytes.dropFirst(9)
            guard let colon = rest.first else { return true }
            let port = rest.dropFirst()
            // Five digits compare as text with the largest port, so 99999 is not one.
            return colon == UInt8(ascii: ":") && !port.isEmpty && port.count <= 5
                && port.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                && (port.count < 5 || !"65535".utf8.lexicographicallyPrecedes(port))
        }
    }

    /// Whether `host` is a `Host` header's `uri-host [ ":" port ]` (RFC 9110 §7.2) and nothing
    /// more: a name (letters, digits, `-`, `.`, `_`, `~`), an IPv4 address, or an IPv6 address in
    /// brackets, then at most a port of 1-5 digits. What is left over (`[::1]evil.example`,
    /// `127.0.0.1:8080, evil.example`) would be read one way here and another way by a proxy,
    /// so it is refused rather than cut down to something that looks allowed.
    static func isHostAndPort(_ host: String) -> Bool {
        let bytes = Array(host.utf8)
        var name = bytes[...]
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            var v6 = in6_addr()
            guard inet_pton(AF_INET6, String(decoding: bytes[1..<close], as: UTF8.self), &v6) == 1 else { return false }
            name = bytes[(close + 1)...]
            guard let colon = name.first else { return true }
            return colon == UInt8(ascii: ":") && isPort(name.dropFirst())
        }
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            guard isPort(bytes[(colon + 1)...]) else { return false }
            name = bytes[..<colon]
        }
        return !name.isEmpty && name.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                true
            default: false
            }
        }
    }

    private static func isPort(_ digits: ArraySlice<UInt8>) -> Bool {
        !digits.isEmpty && digits.count <= 5 && digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            && Int(String(decoding: digits, as: UTF8.self))! <= 65535
    }

    private static func starts(_ bytes: UnsafeBufferPointer<UInt8>, with prefix: StaticString) -> Bool {
        bytes.count >= prefix.utf8CodeUnitCount && memcmp(bytes.baseAddress!, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
    }

    /// The host of a `Host` header: lower-cased, without its port, an IPv6 address unbracketed.
    static func name(ofHost host: String) -> String {
        let value = host.lowercased()
        if value.hasPrefix("["), let close = value.firstIndex(of: "]") {
            return String(value[value.index(after: value.startIndex)..<close])
        }
        if let colon = value.lastIndex(of: ":"), value.firstIndex(of: ":") == colon { return String(value[..<colon]) }
        return value.hasSuffix(".") ? String(value.dropLast()) : value
    }

    /// `scheme://host[:port]` lower-cased, without a default port or a trailing slash.
    static func normalized(origin: String) -> String {
        var value = origin.lowercased()
        while value.hasSuffix("/") { value.removeLast() }
        if value.hasPrefix("http://") && value.hasSuffix(":80") { value.removeLast(3) }
        if value.hasPrefix("https://") && value.hasSuffix(":443") { value.removeLast(4) }
        return value
    }
}

/// This machine's names and addresses, read again (at most once a second) when a request names
/// an address not seen yet: a DHCP lease may change while the server runs.
final class LocalNames: Sendable {
    let names: Set<String>
    private let known = Locked<(addresses: Set<IPAddress>, readAt: Double)>(([], -1))

    init() {
        var buffer = [CChar](repeating: 0, count: 256)
        var names: Set<String> = []
        if gethostname(&buffer, buffer.count) == 0 {
            let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
            if !name.isEmpty {
                let short = name.split(separator: ".").first.map(String.init) ?? name
                names = [name, short, short + ".local"]
            }
        }
        self.names = names
    }

    /// Whether `address` is one of this machine's; the list is read again when it is not in it.
    func has(_ address: IPAddress, clock: Clock) -> Bool {
        known.withLock { known in
            if known.addresses.contains(address) { return true }
            let now = clock.monotonic()
            guard now - known.readAt >= 1 else { return false }
            known = (IPAddress.interfaceAddresses(), now)
            return known.addresses.contains(address)
        }
    }
}
