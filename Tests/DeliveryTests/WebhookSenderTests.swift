import Delivery
import Handlers
import Outbox
import ButtonStore
import CurlHTTP
@testable import Delivery
import Foundation
import TestSupport
import Testing
import ThreadSupport

/// The webhook sender on the HTTP event loop, against receivers on this machine.
@Suite("Webhook sender on the HTTP loop")
struct WebhookSenderTests {
    static func row(_ id: Int64) -> DeliveryRow {
        DeliveryRow(
            id: id, handler: "h", nextAttemptAt: 0, createdAt: 0,
            event: DeliveryEvent(seq: id, id: "evt_\(id)", type: .tap, source: .button("b"), t: 0, json: Array("{\"seq\":\(id)}".utf8)))
    }

    static func sender(
        _ url: String, timeoutMs: Int64 = 10_000, rules: DestinationRules = DestinationRules(), http: HTTPLoop, clock: Clock = .system
    ) -> WebhookSender {
        var webhook = WebhookAction(url: url)
        webhook.timeoutMs = timeoutMs
        return WebhookSender(
            webhook: webhook, key: Array(repeating: 7, count: 32), userAgent: "test", http: http, rules: { rules }, clock: clock)
    }

    /// The time a webhook is signed at and a `Retry-After` date is a wait from are the
    /// sender's clock's, not the machine's.
    @Test func timesAreTheSendersClocks() throws {
        let http = HTTPLoop(name: "test.http", clock: .system)
        let clock = Clock { 1_700_000_000_123 }
        let request = Self.sender("http://127.0.0.1:9/x", http: http, clock: clock).request(Self.row(1))
        #expect(request.headerLines.contains("webhook-timestamp: 1700000000"))
        let reply = HTTPClient.Reply(status: 503, headers: ["retry-after": "Tue, 14 Nov 2023 22:13:50 GMT"], body: [])
        let result = WebhookSender.result(.success(reply), timeoutMs: 1000, now: clock.now())
        #expect(result.retryAfterSeconds == 30)
    }

    /// Sends `rows` one attempt each, all at once, and waits for every result.
    static func send(_ sender: WebhookSender, _ rows: [DeliveryRow]) -> [Int64: AttemptResult] {
        let results = Locked<[Int64: AttemptResult]>([:])
        for row in rows {
            sender.send([row]) { answer in results.withLock { $0[row.id] = answer[0] } }
        }
        _ = eventually(20) { results.withLock { $0.count } == rows.count }
        return results.withLock { $0 }
    }

    @Test func manyHungAttemptsTimeOutTogetherNotOneAfterAnother() throws {
        let http = HTTPLoop(name: "test.http", clock: .system)
        http.start()
        defer { http.stop() }
        let hung = try LocalReceiver()
        let started = Date()
        let results = Self.send(Self.sender(hung.url("/x"), timeoutMs: 500, http: http), (1...20).map(Self.row))
        let seconds = Date().timeIntervalSince(started)
        #expect(results.count == 20)
        #expect(results.values.allSatisfy { $0.outcome == .timeout && $0.output == "no answer within 500 ms" })
        // One after another would take 10 s.
        #expect(seconds < 3, "took \(seconds) s")
    }

    @Test func theAnswerItsRetryAfterAndTheFirstBytesOfItsBody() throws {
        let http = HTTPLoop(name: "test.http", clock: .system)
        http.start()
        defer { http.stop() }
        let body = String(repeating: "x", count: 10_000)
        let receiver = try LocalReceiver(
            answer: "HTTP/1.1 429 Too Many\r\nX-Other: 1\r\nretry-AFTER: 7\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        let result = try #require(Self.send(Self.sender(receiver.url("/x"), http: http), [Self.row(1)])[1])
        #expect(result.outcome == .httpStatus)
        #expect(result.statusCode == 429)
        #expect(result.retryAfterSeconds == 7)
        #expect(result.output == String(repeating: "x", count: AttemptResult.outputLimit))
    }

    @Test func anAddressTheRulesRefuseIsBlockedBeforeConnecting() throws {
        let http = HTTPLoop(name: "test.http", clock: .system)
        http.start()
        defer { http.stop() }
        let receiver = try LocalReceiver(answer: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        var rules = DestinationRules()
        rules.denyPrivate = true
        let blocked = try #require(Self.send(Self.sender(receiver.url("/x"), rules: rules, http: http), [Self.row(1)])[1])
        #expect(blocked.outcome == .blocked)
        #expect(blocked.output.hasPrefix("not sent: the host resolves to"))
        let sent = try #require(Self.send(Self.sender(receiver.url("/x"), http: http), [Self.row(2)])[2])
        #expect(sent.outcome == .ok)
        #expect(sent.statusCode == 200)
    }

    @Test func aStoppedLoopAnswersAtOnce() throws {
        let http = HTTPLoop(name: "test.http", clock: .system)
        http.start()
        let hung = try LocalReceiver()
        let results = Locked<[AttemptResult]>([])
        let sender = Self.sender(hung.url("/x"), timeoutMs: 30_000, http: http)
        sender.send([Self.row(1)]) { answer in results.withLock { $0 += answer } }
        usleep(100_000)
        http.stop()
        #expect(results.withLock { $0.map(\.outcome) } == [.connect])
        sender.send([Self.row(2)]) { answer in results.withLock { $0 += answer } }
        #expect(results.withLock { $0.count } == 2)
    }
}
