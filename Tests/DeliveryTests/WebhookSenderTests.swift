import ButtonStore
import CurlHTTP
@testable import Delivery
import Foundation
import Testing
import ThreadSupport

/// A TCP listener on 127.0.0.1: with `answer`, it answers every request with those bytes
/// (one request a connection); without, it never accepts, and the kernel completes the
/// connections (a receiver that hangs).
final class LocalReceiver: @unchecked Sendable {  // fields are set once in init
    let fd: Int32
    let port: Int

    init(answer: String? = nil) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
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
        guard let answer else { return }
        let bytes = Array(answer.utf8)
        startThread(name: "receiver") {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 65536)
                var head: [UInt8] = []
                while !head.indices.contains(where: { head[$0...].starts(with: Array("\r\n\r\n".utf8)) }) {
                    let n = read(client, &buffer, buffer.count)
                    guard n > 0 else { break }
                    head += buffer[0..<n]
                }
                _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                close(client)
            }
        }
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}

/// The webhook sender on the HTTP event loop, against receivers on this machine.
@Suite("Webhook sender on the HTTP loop")
struct WebhookSenderTests {
    static func row(_ id: Int64) -> DeliveryRow {
        DeliveryRow(
            id: id, handler: "h", nextAttemptAt: 0, createdAt: 0,
            event: DeliveryEvent(seq: id, id: "evt_\(id)", type: "tap", button: "b", t: 0, json: Array("{\"seq\":\(id)}".utf8)))
    }

    static func sender(_ url: String, timeoutMs: Int64 = 10_000, rules: DestinationRules = DestinationRules(), http: HTTPLoop) -> WebhookSender {
        var webhook = Handler.Webhook(url: url)
        webhook.timeoutMs = timeoutMs
        return WebhookSender(webhook: webhook, key: Array(repeating: 7, count: 32), userAgent: "test", http: http, rules: { rules })
    }

    /// Sends `rows` one attempt each, all at once, and waits for every result.
    static func send(_ sender: WebhookSender, _ rows: [DeliveryRow]) -> [Int64: AttemptResult] {
        let results = Locked<[Int64: AttemptResult]>([:])
        for row in rows {
            sender.send([row]) { answer in results.withLock { $0[row.id] = answer[0] } }
        }
        _ = eventually(within: 20) { results.withLock { $0.count } == rows.count }
        return results.withLock { $0 }
    }

    @Test func manyHungAttemptsTimeOutTogetherNotOneAfterAnother() throws {
        let http = HTTPLoop(name: "test.http")
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
        let http = HTTPLoop(name: "test.http")
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
        let http = HTTPLoop(name: "test.http")
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
        let http = HTTPLoop(name: "test.http")
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
