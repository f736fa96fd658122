import Platform
import ThreadSupport

/// OSC over TCP to the destinations a sender names: one connection per destination and
/// framing, kept open between messages, so that messages reach a receiver in the order they
/// were sent (a connection per message would let a receiver read them in any order), with a
/// connect timeout (liblo's connect waits as long as the system does).
///
/// A connection the peer has closed is noticed before the next send (readable with nothing to
/// read) and made again; a failed connect or write closes it and fails the send, which the
/// caller retries on its schedule.
public final class OSCStreams: Sendable {
    /// Each destination's connection; its lock is held for a whole send, so two senders on
    /// one destination do not interleave their bytes.
    private let connections = Locked<[Key: Locked<Int32>]>([:])
    private let connectTimeoutMilliseconds: Int32

    private struct Key: Hashable {
        var host: String
        var port: Int
        var slip: Bool
    }

    public init(connectTimeoutSeconds: Double = 5) {
        connectTimeoutMilliseconds = Int32(connectTimeoutSeconds * 1000)
    }

    deinit {
        connections.withLock { all in
            for connection in all.values { connection.withLock { fd in if fd >= 0 { close(fd) } } }
        }
    }

    /// Sends one encoded packet to `host` (an address literal) and `port`: size-prefixed
    /// (OSC 1.0) or SLIP-framed (OSC 1.1, as ETC Eos takes it on 3037).
    public func send(_ packet: [UInt8], host: String, port: Int, slip: Bool) -> Result<Void, OSCError> {
        let key = Key(host: host, port: port, slip: slip)
        let connection = connections.withLock { all in
            if let existing = all[key] { return existing }
            let made = Locked<Int32>(-1)
            all[key] = made
            return made
        }
        let framed = slip ? SLIP.encode(packet) : StreamFraming.lengthPrefixed(packet)
        return connection.withLock { fd in
            if fd >= 0, Self.peerHasClosed(fd) {
                close(fd)
                fd = -1
            }
            if fd < 0 {
                switch connect(host: host, port: port) {
                case .failure(let error): return .failure(error)
                case .success(let made): fd = made
                }
            }
            if let error = Self.write(fd, framed) {
                close(fd)
                fd = -1
                return .failure(OSCError("tcp send to \(host):\(port) failed: \(error)"))
            }
            return .success(())
        }
    }

    /// A connected, blocking socket with TCP_NODELAY, or why not (within the connect timeout).
    private func connect(host: String, port: Int) -> Result<Int32, OSCError> {
        guard var address = OSCSocket.address(host: host, port: port), !host.isEmpty else {
            return .failure(OSCError("tcp send to \(host):\(port) failed: not an address"))
        }
        let fd = socket(Int32(address.ss_family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .failure(.socket("socket", errno)) }
        let size = OSCSocket.length(address)
        let started = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Platform.connect(fd, $0, size) }
        }
        var code = started == 0 ? 0 : errno
        if code == EINPROGRESS {
            var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&waiting, 1, connectTimeoutMilliseconds)
            if ready == 0 {
                code = ETIMEDOUT
            } else {
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
            }
        }
        guard code == 0 else {
            close(fd)
            return .failure(OSCError("tcp connect to \(host):\(port) failed: \(String(cString: strerror(code)))"))
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return .success(fd)
    }

    /// Whether the peer has closed (or reset) the connection: readable, and nothing to read.
    /// Anything a receiver sends back is read and dropped.
    private static func peerHasClosed(_ fd: Int32) -> Bool {
        var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&waiting, 1, 0) > 0 {
            if waiting.revents & Int16(POLLERR | POLLHUP) != 0 { return true }
            var scratch = [UInt8](repeating: 0, count: 512)
            let count = recv(fd, &scratch, scratch.count, Int32(MSG_DONTWAIT))
            if count <= 0 { return true }
        }
        return false
    }

    /// Writes all of `bytes`; the error text when the connection failed.
    private static func write(_ fd: Int32, _ bytes: [UInt8]) -> String? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Platform.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return String(cString: strerror(written < 0 ? errno : EPIPE)) }
            offset += written
        }
        return nil
    }
}
