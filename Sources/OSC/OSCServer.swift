import Platform
import Synchronization
import ThreadSupport

/// OSC on UDP and TCP on one port. Datagrams are read on one thread; each TCP connection on
/// its own (at most `maxConnections`), framed as OSC 1.0 (a 4-byte size before each packet)
/// or, when its first byte is not 0, as SLIP (OSC 1.1). A sender `allow` refuses is dropped
/// before its bytes are decoded; what liblo cannot decode is dropped; both are counted.
public final class OSCServer: Sendable {
    /// Totals since start, for metrics.
    public struct Counters: Sendable, Equatable {
        /// Messages decoded and handed on.
        public var messages = 0
        /// Packets (or connections) from senders `allow` refused.
        public var refusedPeers = 0
        /// Packets that did not decode.
        public var malformed = 0

        public init(messages: Int = 0, refusedPeers: Int = 0, malformed: Int = 0) {
            self.messages = messages
            self.refusedPeers = refusedPeers
            self.malformed = malformed
        }
    }

    /// Answers the sender of a packet, over the way it came.
    public typealias Reply = @Sendable (OSCMessage) -> Void
    public typealias Receiver = @Sendable (_ messages: [OSCMessage], _ peer: OSCPeer, _ reply: @escaping Reply) -> Void

    public static let maxPacket = 65_536
    public static let maxConnections = 64

    let udp: Int32
    let tcp: Int32
    /// The bound port (useful when 0 was asked).
    public let port: Int
    let allow: @Sendable (OSCPeer) -> Bool
    let receiver: Receiver
    let stopping = Atomic<Bool>(false)
    let running = Atomic<Int>(0)
    let connections = Atomic<Int>(0)
    let messageCount = Atomic<Int>(0)
    let refusedCount = Atomic<Int>(0)
    let malformedCount = Atomic<Int>(0)

    /// Binds both sockets; `port` 0 picks a port free for both.
    public init(
        host: String, port: Int, allow: @escaping @Sendable (OSCPeer) -> Bool, receiver: @escaping Receiver
    ) throws(OSCError) {
        guard OSCSocket.address(host: host, port: port) != nil else { throw OSCError("\(host) is not an IP address") }
        var lastError = OSCError("no free port")
        for _ in 0..<(port == 0 ? 20 : 1) {
            switch Self.bindBoth(host: host, port: port) {
            case .success(let (udp, tcp)):
                self.udp = udp
                self.tcp = tcp
                self.port = OSCSocket.port(of: udp)
                self.allow = allow
                self.receiver = receiver
                return
            case .failure(let error): lastError = error
            }
        }
        throw lastError
    }

    private static func bindBoth(host: String, port: Int) -> Result<(Int32, Int32), OSCError> {
        guard let address = OSCSocket.address(host: host, port: port) else { return .failure(OSCError("bad host")) }
        let udp: Int32
        switch OSCSocket.bind(address, type: Int32(SOCK_DGRAM.rawValue)) {
        case .success(let fd): udp = fd
        case .failure(let error): return .failure(error)
        }
        var receiveBuffer: Int32 = 4 << 20  // a burst of datagrams waits in the kernel, not dropped
        setsockopt(udp, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size))
        guard let same = OSCSocket.address(host: host, port: OSCSocket.port(of: udp)) else { return .failure(OSCError("bad host")) }
        switch OSCSocket.bind(same, type: Int32(SOCK_STREAM.rawValue)) {
        case .success(let tcp): return .success((udp, tcp))
        case .failure(let error):
            close(udp)
            return .failure(error)
        }
    }

    public var counters: Counters {
        Counters(
            messages: messageCount.load(ordering: .relaxed), refusedPeers: refusedCount.load(ordering: .relaxed),
            malformed: malformedCount.load(ordering: .relaxed))
    }

    public func start() {
        running.add(2, ordering: .sequentiallyConsistent)
        startThread(name: "buttond.osc.udp") { [self] in
            readDatagrams()
            running.subtract(1, ordering: .sequentiallyConsistent)
        }
        startThread(name: "buttond.osc.tcp") { [self] in
            acceptConnections()
            running.subtract(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Stops reading (within 0.2 s) and closes both sockets.
    public func stop() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        while running.load(ordering: .sequentiallyConsistent) > 0 { usleep(10_000) }
        close(udp)
        close(tcp)
    }

    /// One packet from an allowed sender: decoded and handed on, or counted as malformed.
    func handle(_ packet: [UInt8], from peer: OSCPeer, reply: @escaping Reply) {
        guard let messages = OSCCodec.decode(packet), !messages.isEmpty else {
            malformedCount.add(1, ordering: .relaxed)
            return
        }
        messageCount.add(messages.count, ordering: .relaxed)
        receiver(messages, peer, reply)
    }

    private func readDatagrams() {
        var buffer = [UInt8](repeating: 0, count: Self.maxPacket)
        while !stopping.load(ordering: .relaxed) {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let count = buffer.withUnsafeMutableBytes { bytes in
                withUnsafeMutablePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(udp, bytes.baseAddress, bytes.count, 0, $0, &length) }
                }
            }
            guard count >= 0, let peer = OSCPeer(storage, transport: .udp) else { continue }
            guard allow(peer) else {
                refusedCount.add(1, ordering: .relaxed)
                continue
            }
            let (fd, to) = (udp, storage)
            handle(Array(buffer[0..<count]), from: peer) { message in
                let bytes = OSCCodec.encode(message)
                var to = to
                let length = OSCSocket.length(to)
                _ = withUnsafePointer(to: &to) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, bytes, bytes.count, 0, $0, length) }
                }
            }
        }
    }
}
