import Foundation
import OSC
import Platform
import Testing

/// OSC over TCP on kept-open connections: order, a peer that went away, a connect that
/// never completes.
@Suite struct OSCStreamsTests {
    /// A listening TCP socket on 127.0.0.1 that accepts nothing by itself.
    func listener(backlog: Int32 = 8) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(fd, backlog) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func manyMessagesArriveInOrderOnOneConnection() throws {
        let inbox = Inbox()
        let server = try OSCServer(host: "127.0.0.1", port: 0, allow: { _ in true }) { messages, _, _ in
            inbox.messages.withLock { $0 += messages }
        }
        server.start()
        defer { server.stop() }
        let streams = OSCStreams()
        let sent = (0..<200).map { OSCMessage("/n", [.int32(Int32($0))]) }
        for message in sent {
            try streams.send(OSCCodec.encode(message), host: "127.0.0.1", port: server.port, slip: false).get()
        }
        #expect(inbox.wait(for: sent.count) == sent)
    }

    @Test func aClosedPeerIsNoticedAndTheConnectionMadeAgain() throws {
        let (fd, port) = try listener()
        defer { close(fd) }
        let streams = OSCStreams()
        let packet = OSCCodec.encode(OSCMessage("/x", []))
        try streams.send(packet, host: "127.0.0.1", port: port, slip: false).get()
        let first = accept(fd, nil, nil)
        try #require(first >= 0)
        var buffer = [UInt8](repeating: 0, count: 64)
        #expect(recv(first, &buffer, 64, 0) == 4 + packet.count)
        close(first)
        Thread.sleep(forTimeInterval: 0.05)
        try streams.send(packet, host: "127.0.0.1", port: port, slip: true).get()  // another framing: its own connection
        try streams.send(packet, host: "127.0.0.1", port: port, slip: false).get()  // the closed one, made again
        let second = accept(fd, nil, nil), third = accept(fd, nil, nil)
        defer { close(second); close(third) }
        #expect(second >= 0 && third >= 0)
    }

    @Test func aConnectThatNeverCompletesFailsWithinTheTimeout() throws {
        // A backlog of 0, filled by a few handshakes nobody accepts: the kernel drops further SYNs.
        let (fd, port) = try listener(backlog: 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let fillers = (0..<4).map { _ in
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            return filler
        }
        defer { fillers.forEach { close($0) } }
        Thread.sleep(forTimeInterval: 0.1)
        let streams = OSCStreams(connectTimeoutSeconds: 0.3)
        let started = Date()
        let result = streams.send(OSCCodec.encode(OSCMessage("/x", [])), host: "127.0.0.1", port: port, slip: false)
        guard case .failure(let error) = result else {
            Issue.record("a send to a listener that takes no handshake succeeded")
            return
        }
        #expect(error.description.contains("timed out"))
        #expect(Date().timeIntervalSince(started) < 3)
    }
}
