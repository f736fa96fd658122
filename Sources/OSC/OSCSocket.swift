import Platform

/// The few socket calls the server makes, behind Swift names.
enum OSCSocket {
    /// A socket address for `host` (an IPv4 or IPv6 literal, `localhost`, or empty for every
    /// IPv6 and IPv4 address) and `port`; nil when `host` is not a literal.
    static func address(host: String, port: Int) -> sockaddr_storage? {
        let literal = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var in4 = in_addr()
        if inet_pton(AF_INET, literal == "localhost" ? "127.0.0.1" : literal, &in4) == 1 {
            return IPAddress.socketAddress(withUnsafeBytes(of: &in4) { Array($0) }, port: port).0
        }
        var in6 = in6_addr()
        guard literal.isEmpty || inet_pton(AF_INET6, literal, &in6) == 1 else { return nil }
        return IPAddress.socketAddress(withUnsafeBytes(of: &in6) { Array($0) }, port: port).0
    }

    static func length(_ storage: sockaddr_storage) -> socklen_t {
        socklen_t(Int32(storage.ss_family) == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
    }

    /// A bound socket (listening, for TCP), or the errno.
    static func bind(_ address: sockaddr_storage, type: Int32) -> Result<Int32, OSCError> {
        let fd = socket(Int32(address.ss_family), type | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(.socket("socket", errno)) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if Int32(address.ss_family) == AF_INET6 {
            var zero: Int32 = 0  // "::" takes IPv4 too
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = address
        let size = length(address)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Platform.bind(fd, $0, size) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            return .failure(.socket("bind", code))
        }
        if type == Int32(SOCK_STREAM.rawValue), listen(fd, 64) != 0 {
            let code = errno
            close(fd)
            return .failure(.socket("listen", code))
        }
        setTimeout(fd, seconds: 0.2)
        return .success(fd)
    }

    /// An unbound UDP socket of `family` to send from.
    static func datagram(family: Int32) -> Int32 {
        socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }

    /// Receives wake up this often, so a stop is noticed.
    static func setTimeout(_ fd: Int32, seconds: Double) {
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The port a socket is bound to.
    static func port(of fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return OSCPeer(storage, transport: .udp)?.port ?? 0
    }
}

/// Why the OSC server could not start, or a send failed.
public struct OSCError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }

    static func socket(_ call: String, _ code: Int32) -> OSCError {
        OSCError("\(call): \(String(cString: strerror(code)))")
    }
}
