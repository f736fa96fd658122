import Platform
import ThreadSupport

extension OSCServer {
    func acceptConnections() {
        while !stopping.load(ordering: .relaxed) {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(tcp, $0, &length) }
            }
            guard fd >= 0 else { continue }
            guard let peer = OSCPeer(storage, transport: .tcp), allow(peer) else {
                refusedCount.add(1, ordering: .relaxed)
                close(fd)
                continue
            }
            guard connections.add(1, ordering: .relaxed).newValue <= Self.maxConnections else {
                connections.subtract(1, ordering: .relaxed)
                close(fd)
                continue
            }
            OSCSocket.setTimeout(fd, seconds: 0.2)
            running.add(1, ordering: .sequentiallyConsistent)
            startThread(name: "buttond.osc.conn") { [self] in
                read(connection: fd, peer: peer)
                close(fd)
                connections.subtract(1, ordering: .relaxed)
                running.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
    }

    /// Reads packets until the peer closes, a frame is too big, or the server stops. A stream
    /// whose first byte is 0 is size-prefixed (OSC 1.0: no packet is 16 MiB); any other first
    /// byte (END, or the `/` or `#` of a packet) is SLIP. Replies go back framed as the peer frames.
    private func read(connection fd: Int32, peer: OSCPeer) {
        var framing: StreamFraming?
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let writer = Locked(fd)
        while !stopping.load(ordering: .relaxed) {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard count > 0 else { return }
            if framing == nil { framing = buffer[0] == 0 ? .length([]) : .slip(SLIP.Decoder(maxPacket: Self.maxPacket)) }
            guard let packets = framing?.feed(buffer[0..<count]) else {
                malformedCount.add(1, ordering: .relaxed)
                return
            }
            let slip = framing?.isSLIP ?? false
            for packet in packets {
                handle(packet, from: peer) { message in
                    let bytes = OSCCodec.encode(message)
                    let framed = slip ? SLIP.encode(bytes) : StreamFraming.lengthPrefixed(bytes)
                    writer.withLock { _ = writeAll($0, framed) }
                }
            }
        }
    }
}

/// How packets follow each other on a TCP stream.
enum StreamFraming {
    case length([UInt8])
    case slip(SLIP.Decoder)

    var isSLIP: Bool { if case .slip = self { true } else { false } }

    /// The whole packets `bytes` complete; nil when a size is out of bounds (the stream is lost).
    mutating func feed(_ bytes: ArraySlice<UInt8>) -> [[UInt8]]? {
        switch self {
        case .slip(var decoder):
            let packets = decoder.feed(bytes)
            self = .slip(decoder)
            return packets
        case .length(var pending):
            pending += bytes
            var packets: [[UInt8]] = []
            var offset = 0
            while pending.count - offset >= 4 {
                let size = Int(pending[offset]) << 24 | Int(pending[offset + 1]) << 16 | Int(pending[offset + 2]) << 8 | Int(pending[offset + 3])
                guard size > 0, size <= OSCServer.maxPacket else { return nil }
                guard pending.count - offset - 4 >= size else { break }
                packets.append(Array(pending[(offset + 4)..<(offset + 4 + size)]))
                offset += 4 + size
            }
            self = .length(Array(pending[offset...]))
            return packets
        }
    }

    static func lengthPrefixed(_ packet: [UInt8]) -> [UInt8] {
        let size = UInt32(packet.count)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + packet
    }
}
