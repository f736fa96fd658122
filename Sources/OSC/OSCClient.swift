import COSC
import Platform

/// Sends OSC messages with liblo (`lo_address_new_with_proto`, `lo_send_message`): UDP
/// datagrams, or TCP, OSC 1.0 framed (a size before each packet) or SLIP (OSC 1.1).
public enum OSCClient {
    /// `osc.udp://HOST:PORT` or `osc.tcp://HOST:PORT`, taken apart.
    public struct Destination: Sendable, Equatable {
        public var transport: OSCPeer.Transport
        /// As written (an IPv6 literal without its brackets).
        public var host: String
        public var port: Int

        /// Parses the URL; nil when it is not one of the two forms (a path after the port is refused).
        public init?(url: String) {
            let forms: [(String, OSCPeer.Transport)] = [("osc.udp://", .udp), ("osc.tcp://", .tcp)]
            guard let (prefix, transport) = forms.first(where: { url.lowercased().hasPrefix($0.0) }) else { return nil }
            var rest = Substring(url.dropFirst(prefix.count))
            if rest.hasSuffix("/") { rest = rest.dropLast() }
            let host: Substring, portText: Substring
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]"), rest[rest.index(after: close)...].hasPrefix(":") else { return nil }
                host = rest[rest.index(after: rest.startIndex)..<close]
                portText = rest[rest.index(close, offsetBy: 2)...]
            } else {
                guard let colon = rest.lastIndex(of: ":") else { return nil }
                host = rest[..<colon]
                portText = rest[rest.index(after: colon)...]
            }
            guard !host.isEmpty, !host.contains(where: { "/?#@ ".contains($0) }), let port = Int(portText), (1...65535).contains(port)
            else { return nil }
            self.transport = transport
            self.host = String(host)
            self.port = port
        }
    }

    /// Sends one message to `host` (an address literal; names are resolved by the caller, who
    /// checks where they point) and `port`. A UDP send is done once the datagram is out.
    public static func send(
        _ message: OSCMessage, transport: OSCPeer.Transport, host: String, port: Int, slip: Bool = false
    ) -> Result<Void, OSCError> {
        let proto = transport == .udp ? LO_UDP : LO_TCP
        guard let address = lo_address_new_with_proto(proto, host, String(port)) else {
            return .failure(OSCError("liblo could not make an address for \(host):\(port)"))
        }
        defer { lo_address_free(address) }
        if transport == .tcp {
            lo_address_set_tcp_nodelay(address, 1)
            if slip { lo_address_set_stream_slip(address, 1) }
        }
        guard let lo = OSCCodec.loMessage(message) else { return .failure(OSCError("liblo could not make a message")) }
        defer { lo_message_free(lo) }
        guard lo_send_message(address, message.address, lo) >= 0 else {
            let text = lo_address_errstr(address).map { String(cString: $0) } ?? "unknown"
            return .failure(OSCError("\(transport.rawValue) send to \(host):\(port) failed: \(text)"))
        }
        return .success(())
    }
}
