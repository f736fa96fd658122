import COSC
import Platform

/// Sends OSC messages with liblo (`lo_address_new_with_proto`, `lo_send_message`): UDP
/// datagrams, or TCP, OSC 1.0 framed (a size before each packet) or SLIP (OSC 1.1). Whoever
/// sends makes one and keeps it (a dispatcher's OSC handlers share one, the OSC feedback has
/// its own): its sockets and connections are closed with it.
public final class OSCClient: Sendable {
    /// The sending sockets (one per family, shared by every thread: a datagram is sent whole).
    private let datagrams4: Int32
    private let datagrams6: Int32
    /// The TCP connections, one per destination.
    private let streams: OSCStreams

    public init(connectTimeoutSeconds: Double = 5) {
        datagrams4 = OSCSocket.datagram(family: AF_INET)
        datagrams6 = OSCSocket.datagram(family: AF_INET6)
        streams = OSCStreams(connectTimeoutSeconds: connectTimeoutSeconds)
    }

    deinit {
        for fd in [datagrams4, datagrams6] where fd >= 0 { close(fd) }
    }

    /// `osc.udp://HOST:PORT` or `osc.tcp://HOST:PORT`, taken apart.
    public struct Destination: Sendable, Equatable {
        public var transport: OSCPeer.Transport
        /// As written (an IPv6 literal without its brackets).
        public var host: String
        public var port: Int

        /// Parses the URL; nil when it is not one of the two forms (a path after the port is refused).
        public init?(url: String) {
            let transports: [String: OSCPeer.Transport] = ["osc.udp": .udp, "osc.tcp": .tcp]
            guard let parts = URLParts(url), let transport = transports[parts.scheme.lowercased()], parts.userInfo == nil,
                parts.rest.isEmpty || parts.rest == "/", !parts.host.isEmpty, !parts.host.contains(" "),
                let port = parts.port.flatMap({ Int($0) }), (1...65535).contains(port)
            else { return nil }
            self.transport = transport
            self.host = String(parts.host)
            self.port = port
        }
    }

    /// Sends one message to `host` (an address literal; names are resolved by the caller, who
    /// checks where they point) and `port`. UDP goes out of one socket per address family,
    /// made with the client (liblo's address and socket made and closed per message cost ~95 µs of a
    /// sending thread), done once the datagram is out; TCP goes over the destination's one
    /// kept-open connection (`OSCStreams`), so messages arrive in the order they were sent.
    /// The packet is liblo's serialisation either way (`OSCCodec.encode`).
    public func send(
        _ message: OSCMessage, transport: OSCPeer.Transport, host: String, port: Int, slip: Bool = false
    ) -> Result<Void, OSCError> {
        let packet = OSCCodec.encode(message)
        if transport == .tcp {
            return streams.send(packet, host: host, port: port, slip: slip)
        }
        guard var address = OSCSocket.address(host: host, port: port), !host.isEmpty else {
            return .failure(OSCError("udp send to \(host):\(port) failed: not an address"))
        }
        let fd = Int32(address.ss_family) == AF_INET ? datagrams4 : datagrams6
        let size = OSCSocket.length(address)
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, packet, packet.count, 0, $0, size) }
        }
        guard sent == packet.count else {
            return .failure(OSCError("udp send to \(host):\(port) failed: \(String(cString: strerror(errno)))"))
        }
        return .success(())
    }
}
