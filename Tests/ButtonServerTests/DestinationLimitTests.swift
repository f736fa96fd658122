import Foundation
import MicroHTTP
import Testing
import CurlHTTP
import TestSupport

/// The delivery log suite, continued: one destination that hangs does not take the workers
/// of the others.
extension DeliveryLogRouteTests {
    @Test func aHungDestinationDoesNotDelayAHealthyOne() throws {
        let server = try Self.server()  // 16 workers, as in production
        let hung = try LocalReceiver()
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
