import Platform

/// Where a webhook may go (SPEC §5): never to link-local, multicast, limited broadcast or
/// unspecified addresses, nor back to buttond itself (a loop); with `denyPrivate`, not to
/// loopback or private ranges either. A pure value, asked once at registration with the URL's
/// host and again on every attempt with each resolved address.
public struct DestinationRules: Sendable, Equatable {
    /// An address buttond itself listens on: `address` is 4 or 16 bytes; all-zero bytes mean
    /// the wildcard (every local address). `port` is the bound port, never 0.
    public struct Listener: Sendable, Equatable {
        public var address: [UInt8]
        public var port: Int

        public init(address: [UInt8], port: Int) {
            self.address = address
            self.port = port
        }
    }

    public var denyPrivate: Bool
    public var listeners: [Listener]
    /// Addresses of this machine's interfaces (for a wildcard listener): 4/16-byte arrays.
    public var localAddresses: [[UInt8]]

    public init(denyPrivate: Bool = false, listeners: [Listener] = [], localAddresses: [[UInt8]] = []) {
        self.denyPrivate = denyPrivate
        self.listeners = listeners
        self.localAddresses = localAddresses
    }

    /// `localAddresses` filled from getifaddrs(3) (IPv4 and IPv6), in this type's forms.
    public static func interfaceAddresses() -> [[UInt8]] {
        IPAddress.interfaceAddresses().map { $0.v4 ?? $0.bytes }
    }

    /// Parses a listening host string ("127.0.0.1", "0.0.0.0", "::", "::1", "[::1]",
    /// "localhost" → 127.0.0.1) into a Listener; nil for a host name it cannot parse.
    public static func listener(host: String, port: Int) -> Listener? {
        if host.lowercased() == "localhost" { return Listener(address: [127, 0, 0, 1], port: port) }
        return literalAddress(host).map { Listener(address: $0, port: port) }
    }

    /// Why `address` (4 or 16 bytes, network order) at `port` may not receive a webhook, or
    /// nil. Reasons are short phrases used in messages. IPv4-mapped (::ffff:a.b.c.d) and
    /// IPv4-compatible (::a.b.c.d) IPv6 are judged as their IPv4 for every rule, since that is
    /// where the connection may go. Bytes of another length are refused as "not an IP address".
    public func refusal(address: [UInt8], port: Int) -> String? {
        guard address.count == 4 || address.count == 16 else { return "not an IP address" }
        let address = Self.unmapped(address)
        if let reason = Self.alwaysRefused(address) { return reason }
        if isOwn(address, port: port) { return "buttond's own address" }
        guard denyPrivate else { return nil }
        if Self.isLoopback(address) { return "a loopback address" }
        if Self.isPrivate(address) { return "a private address" }
        return nil
    }

    /// The same for a URL host that is an IP literal in any spelling (with or without [ ]);
    /// nil for a host name (names are checked after resolution).
    public func refusal(literalHost: String, port: Int) -> String? {
        Self.literalAddress(literalHost).flatMap { refusal(address: $0, port: port) }
    }

    /// Bytes of an IP literal in any spelling, or nil: IPv4 as inet_aton(3) reads it (and so
    /// as curl and getaddrinfo do: `2130706433`, `0x7f.1`, `0177.0.0.1`), IPv6 with or
    /// without brackets, an IPv6 zone (`fe80::1%eth0`) ignored.
    public static func literalAddress(_ host: String) -> [UInt8]? {
        var literal = Substring(host)
        if literal.hasPrefix("[") && literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
        // inet_aton stops at whitespace and C strings at NUL: "127.0.0.1 x" is not a literal.
        guard !literal.isEmpty, literal.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        if literal.contains(":") {
            if let zone = literal.firstIndex(of: "%") { literal = literal[..<zone] }
            var v6 = in6_addr()
            guard inet_pton(AF_INET6, String(literal), &v6) == 1 else { return nil }
            return withUnsafeBytes(of: v6) { Array($0) }
        }
        var v4 = in_addr()
        guard inet_aton(String(literal), &v4) != 0 else { return nil }
        return withUnsafeBytes(of: v4.s_addr) { Array($0) }
    }

    // MARK: - Ranges

    /// Link-local, multicast, limited broadcast and unspecified: never a webhook receiver,
    /// whatever the flags.
    private static func alwaysRefused(_ a: [UInt8]) -> String? {
        if a.count == 4 {
            if a[0] == 169 && a[1] == 254 { return "a link-local address" }
            if a[0] & 0xF0 == 224 { return "a multicast address" }
            if a.allSatisfy({ $0 == 0xFF }) { return "the broadcast address" }
            if a[0] == 0 { return "the unspecified address" }
        } else {
            if a[0] == 0xFE && a[1] & 0xC0 == 0x80 { return "a link-local address" }
            if a[0] == 0xFF { return "a multicast address" }
            if isZero(a) { return "the unspecified address" }
        }
        return nil
    }

    private static func isLoopback(_ a: [UInt8]) -> Bool { IPAddress(bytes: a).isLoopback }

    /// 10/8, 172.16/12, 192.168/16 and fc00::/7.
    private static func isPrivate(_ a: [UInt8]) -> Bool {
        if a.count == 16 { return a[0] & 0xFE == 0xFC }
        return a[0] == 10 || (a[0] == 172 && a[1] & 0xF0 == 16) || (a[0] == 192 && a[1] == 168)
    }

    /// Whether a connection to `address:port` would reach one of buttond's listeners. A
    /// wildcard listener answers on every loopback and interface address (and on the
    /// unspecified one, which Linux treats as "this host"); "::" also takes IPv4 (dual stack).
    private func isOwn(_ address: [UInt8], port: Int) -> Bool {
        listeners.contains { listener in
            guard listener.port == port else { return false }
            let bound = Self.unmapped(listener.address)
            guard Self.isZero(bound) else { return bound == address }
            guard bound.count == 16 || address.count == 4 else { return false }
            return Self.isLoopback(address) || Self.isZero(address)
                || localAddresses.contains { Self.unmapped($0) == address }
        }
    }

    private static func isZero(_ a: [UInt8]) -> Bool { a.allSatisfy { $0 == 0 } }

    /// An IPv6 address that stands for an IPv4 one, as its 4 IPv4 bytes: IPv4-mapped
    /// (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d, first 96 bits zero), except :: and
    /// ::1, which are IPv6's own unspecified and loopback addresses. Anything else unchanged.
    private static func unmapped(_ a: [UInt8]) -> [UInt8] {
        guard a.count == 16, a[0..<10].allSatisfy({ $0 == 0 }) else { return a }
        let mapped = a[10] == 0xFF && a[11] == 0xFF
        let compatible = a[10] == 0 && a[11] == 0 && (a[12..<15].contains { $0 != 0 } || a[15] > 1)
        guard mapped || compatible else { return a }
        return Array(a[12...])
    }
}
