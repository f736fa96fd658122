/// SLIP framing (RFC 1055) as OSC 1.1 uses it on a stream (ETC Eos's TCP port 3037): each
/// packet between END bytes, END and ESC inside it escaped.
public enum SLIP {
    public static let end: UInt8 = 0xC0
    static let esc: UInt8 = 0xDB
    static let escEnd: UInt8 = 0xDC
    static let escEsc: UInt8 = 0xDD

    /// One packet framed: END, the escaped bytes, END.
    public static func encode(_ packet: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [end]
        out.reserveCapacity(packet.count + 8)
        for byte in packet {
            switch byte {
            case end: out += [esc, escEnd]
            case esc: out += [esc, escEsc]
            default: out.append(byte)
            }
        }
        out.append(end)
        return out
    }

    /// Reads packets out of a stream: bytes go in as they arrive, whole packets come out.
    public struct Decoder: Sendable {
        var packet: [UInt8] = []
        var escaped = false
        /// A packet longer than this is dropped whole (its bytes up to the next END).
        public var maxPacket: Int
        var overflowed = false

        public init(maxPacket: Int = 65_536) { self.maxPacket = maxPacket }

        /// The packets `bytes` complete; an empty frame (END END) is none.
        public mutating func feed(_ bytes: some Sequence<UInt8>) -> [[UInt8]] {
            var done: [[UInt8]] = []
            for byte in bytes {
                if byte == SLIP.end {
                    if !packet.isEmpty && !overflowed { done.append(packet) }
                    packet.removeAll(keepingCapacity: true)
                    escaped = false
                    overflowed = false
                    continue
                }
                var value = byte
                if escaped {
                    value = byte == SLIP.escEnd ? SLIP.end : byte == SLIP.escEsc ? SLIP.esc : byte
                    escaped = false
                } else if byte == SLIP.esc {
                    escaped = true
                    continue
                }
                if packet.count >= maxPacket { overflowed = true } else { packet.append(value) }
            }
            return done
        }
    }
}
