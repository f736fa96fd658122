import Foundation
import MicroHTTP
import Testing
import CurlHTTP

/// A TCP listener on 127.0.0.1 that never answers: the kernel completes each connection
/// (the backlog is deep) and nobody ever reads or writes, so a webhook to it runs into its
/// `timeoutMs`.
final class HungReceiver: @unchecked Sendable {  // fields are set once in init
    let fd: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && listen(fd, 256) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw HTTPClient.Failure(description: "cannot listen on 127.0.0.1")
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    deinit { close(fd) }
}

/// The delivery log suite, continued: one destination that hangs does not take the workers
/// of the others.
extension DeliveryLogRouteTests {
    @Test func aHungDestinationDoesNotDelayAHealthyOne() throws {
        let server = try Self.server()  // 16 workers, as in production
        let hung = try HungReceiver()
        let sink = try Sink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        var stuck: [String] = []
        for index in 0..<20 {
            stuck.append(
                try Self.handler(server, sink, "buttons/b", Self.hook(hung.url("/never/\(index)"), webhook: #", "timeoutMs": 30000"#)))
        }
        // Made last: its deliveries are the newest of each event, behind the twenty hung ones.
        let healthy = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))

        var pressedAt: [Double] = []
        for _ in 0..<5 {
            pressedAt.append(Date().timeIntervalSince1970)
            try Self.tap(server)
            usleep(200_000)
        }
        let got = sink.wait(seconds: 10) { $0.count >= 5 }
        #expect(got.count == 5, "the healthy handler got \(got.count) of 5 deliveries while 20 handlers hang")
        for (received, pressed) in zip(got, pressedAt) {
            #expect(received.at - pressed < 5, "a healthy delivery arrived \(received.at - pressed) s after its press")
        }
        #expect(got.allSatisfy { $0.verifiedBy == [healthy] })
        // The hung destination holds a few workers, not the pool.
        let inFlight = try Self.list(server, "status=in_flight&limit=100").filter { stuck.contains($0["handler"]?.string ?? "") }
        #expect(inFlight.count >= 1 && inFlight.count <= 14, "\(inFlight.count) attempts in flight to the hung receiver")
    }
}
