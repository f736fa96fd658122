import Foundation
import OSC
import Platform
import Synchronization
import Testing

/// Messages a server handed on, shared with its threads.
final class Inbox: Sendable {
    let messages = Mutex<[OSCMessage]>([])

    func wait(for count: Int, seconds: Double = 5) -> [OSCMessage] {
        let deadline = Date().addingTimeInterval(seconds)
        while messages.withLock({ $0.count }) < count && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return messages.withLock { $0 }
    }
}

@Suite struct OSCServerTests {
    func server(allow: @escaping @Sendable (OSCPeer) -> Bool = { _ in true }, echo: Bool = false) throws -> (OSCServer, Inbox) {
        let inbox = Inbox()
        let server = try OSCServer(host: "127.0.0.1", port: 0, allow: allow) { messages, _, reply in
            inbox.messages.withLock { $0 += messages }
            if echo { for message in messages { reply(OSCMessage("/echo" + message.address, message.arguments)) } }
        }
        server.start()
        return (server, inbox)
    }

    @Test func receivesOverUDPAndTCPAndSLIP() throws {
        let (server, inbox) = try server()
        defer { server.stop() }
        let message = OSCMessage("/a", [.int32(1), .string("x")])
        let client = OSCClient()
        #expect(throws: Never.self) { try client.send(message, transport: .udp, host: "127.0.0.1", port: server.port).get() }
        #expect(throws: Never.self) { try client.send(message, transport: .tcp, host: "127.0.0.1", port: server.port).get() }
        #expect(throws: Never.self) {
            try client.send(message, transport: .tcp, host: "127.0.0.1", port: server.port, slip: true).get()
        }
        #expect(inbox.wait(for: 3) == [message, message, message])
    }

    @Test func dropsRefusedSendersAndMalformedPackets() throws {
        let (server, inbox) = try server(allow: { _ in false })
        defer { server.stop() }
        _ = OSCClient().send(OSCMessage("/a"), transport: .udp, host: "127.0.0.1", port: server.port)
        let deadline = Date().addingTimeInterval(5)
        while server.counters.refusedPeers < 1 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(server.counters.refusedPeers == 1)
        #expect(inbox.messages.withLock { $0.isEmpty })
    }

    @Test func answersTheSender() throws {
        let (server, _) = try server(echo: true)
        defer { server.stop() }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var to = sockaddr_in()
        to.sin_family = sa_family_t(AF_INET)
        to.sin_port = UInt16(server.port).bigEndian
        to.sin_addr.s_addr = inet_addr("127.0.0.1")
        let packet = OSCCodec.encode(OSCMessage("/hi", [.float(1)]))
        _ = withUnsafePointer(to: &to) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, packet, packet.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var buffer = [UInt8](repeating: 0, count: 2048)
        let count = recv(fd, &buffer, buffer.count, 0)
        #expect(count > 0)
        #expect(OSCCodec.decode(Array(buffer.prefix(max(count, 0)))) == [OSCMessage("/echo/hi", [.float(1)])])
    }
}
