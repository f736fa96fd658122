/// An IPv4 or IPv6 address as its 16 bytes (IPv4 as IPv4-mapped IPv6), so forms written
/// differently compare equal (`::1` and `0:0::1`, `127.0.0.1` and `::ffff:127.0.0.1`). The one
/// place that decides what is loopback and reads this machine's interface addresses: the
/// request gate (which hosts are answered), the destination rules (where a webhook may go)
/// and the start-up (whether tokens are needed) all ask it.
public struct IPAddress: Hashable, Sendable {
    public let bytes: [UInt8]

    /// A numeric address as `inet_pton` reads it (`[…]` brackets and an IPv6 zone allowed);
    /// nil for anything else, a host name included.
    public init?(_ text: some StringProtocol) {
        var literal = Substring(text)
        if literal.hasPrefix("[") && literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
        if literal.contains(":"), let zone = literal.firstIndex(of: "%") { literal = literal[..<zone] }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, String(literal), &v4) == 1 {
            self.init(bytes: withUnsafeBytes(of: &v4) { Array($0) })
        } else if inet_pton(AF_INET6, String(literal), &v6) == 1 {
            self.init(bytes: withUnsafeBytes(of: &v6) { Array($0) })
        } else {
            return nil
        }
    }

    /// From 4 bytes (IPv4, mapped) or 16 (IPv6).
    public init(bytes: [UInt8]) {
        self.bytes = bytes.count == 4 ? Array(repeating: 0, count: 10) + [0xFF, 0xFF] + bytes : bytes
    }

    /// The 4 bytes of an IPv4(-mapped) address; nil for IPv6.
    public var v4: [UInt8]? { isMapped ? Array(bytes[12..<16]) : nil }

    private var isMapped: Bool { bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF }

    /// 127.0.0.0/8 and ::1.
    public var isLoopback: Bool {
        (isMapped && bytes[12] == 127) || bytes == Array(repeating: 0, count: 15) + [1]
    }

    /// Whether a host as written (a name, an address, `[v6]`) is this machine's loopback:
    /// `localhost` and its subdomains, or a loopback address.
    public static func isLoopback(host: some StringProtocol) -> Bool {
        let name = host.lowercased()
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        return IPAddress(name)?.isLoopback ?? false
    }

    /// This machine's interface addresses, IPv4 and IPv6, as getifaddrs(3) lists them now.
    public static func interfaceAddresses() -> Set<IPAddress> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: Set<IPAddress> = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr else { continue }
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                let v4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                found.insert(IPAddress(bytes: withUnsafeBytes(of: v4) { Array($0) }))
            case AF_INET6:
                let v6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                found.insert(IPAddress(bytes: withUnsafeBytes(of: v6) { Array($0) }))
            default:
                continue
            }
        }
        return found
    }
}

extension IPAddress {
    /// The socket address of 4 bytes (IPv4) or 16 (IPv6), in network order, and a port, with
    /// its length: what `connect` and `bind` take.
    public static func socketAddress(_ bytes: [UInt8], port: Int) -> (sockaddr_storage, socklen_t) {
        var storage = sockaddr_storage()
        let length = withUnsafeMutableBytes(of: &storage) { raw in
            let port = UInt16(truncatingIfNeeded: port).bigEndian
            if bytes.count == 4 {
                var v4 = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: port, sin_addr: in_addr(), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
                withUnsafeMutableBytes(of: &v4.sin_addr) { $0.copyBytes(from: bytes) }
                raw.storeBytes(of: v4, as: sockaddr_in.self)
                return MemoryLayout<sockaddr_in>.size
            }
            var v6 = sockaddr_in6(sin6_family: sa_family_t(AF_INET6), sin6_port: port, sin6_flowinfo: 0, sin6_addr: in6_addr(), sin6_scope_id: 0)
            withUnsafeMutableBytes(of: &v6.sin6_addr) { $0.copyBytes(from: bytes.prefix(16)) }
            raw.storeBytes(of: v6, as: sockaddr_in6.self)
            return MemoryLayout<sockaddr_in6>.size
        }
        return (storage, socklen_t(length))
    }
}
