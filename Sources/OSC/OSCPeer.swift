import Platform

/// Who sent a packet: the address (4 or 16 bytes, network order; IPv4-mapped IPv6 as its
/// IPv4), the port, and how, so the server can answer it and an allow-list can judge it.
public struct OSCPeer: Sendable, Equatable, CustomStringConvertible {
    public enum Transport: String, Sendable { case udp, tcp }

    public var address: [UInt8]
    public var port: Int
    public var transport: Transport

    public init(address: [UInt8], port: Int, transport: Transport) {
        self.address = address
        self.port = port
        self.transport = transport
    }

    /// The address as text: `127.0.0.1` or `::1`.
    public var host: String {
        var text = [CChar](repeating: 0, count: 64)
        let family = address.count == 4 ? AF_INET : AF_INET6
        _ = address.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `udp 127.0.0.1:5000` or `tcp [::1]:5000`.
    public var description: String {
        let host = host
        return "\(transport.rawValue) " + (address.count == 4 ? "\(host):\(port)" : "[\(host)]:\(port)")
    }

    /// From a socket address of either family.
    init?(_ storage: sockaddr_storage, transport: Transport) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let sin = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            address = withUnsafeBytes(of: sin.sin_addr) { Array($0) }
            port = Int(UInt16(bigEndian: sin.sin_port))
        case AF_INET6:
            let sin6 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            let bytes = withUnsafeBytes(of: sin6.sin6_addr) { Array($0) }
            let mapped = bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
            address = mapped ? Array(bytes.suffix(4)) : bytes
            port = Int(UInt16(bigEndian: sin6.sin6_port))
        default:
            return nil
        }
        self.transport = transport
    }
}
