import Platform
import Outbox
import CurlHTTP
import FoundationEssentials

/// Sends a webhook handler's attempts on the one `HTTPLoop`: Standard Webhooks headers, the
/// stored body bytes, no redirects followed, explicit connect and total timeouts, every
/// address a connection is opened to checked against the destination rules. Nothing here
/// waits: the loop completes the attempt.
struct WebhookSender: DeliverySender {
    let webhook: WebhookAction
    /// The handler's secret, decoded and made ready for its signatures.
    let key: HMACKey
    let userAgent: String
    let http: HTTPLoop
    let rules: @Sendable () -> DestinationRules
    /// The `webhook-timestamp` and a `Retry-After` date's wait are read from it.
    let clock: Clock
    let kind = "webhook"
    var destination: String { DestinationSlots.destination(webhook: webhook.url) }

    init(
        webhook: WebhookAction, key: [UInt8], userAgent: String, http: HTTPLoop, rules: @escaping @Sendable () -> DestinationRules,
        clock: Clock
    ) {
        self.webhook = webhook
        self.key = HMACKey(key)
        self.userAgent = userAgent
        self.http = http
        self.rules = rules
        self.clock = clock
    }

    /// SPEC §5: at most 3 s to connect.
    static let connectTimeoutMs = 3000

    func send(_ rows: [DeliveryRow], done: @escaping @Sendable ([AttemptResult]) -> Void) {
        let (timeoutMs, clock) = (webhook.timeoutMs, clock)
        http.send(request(rows[0])) { answer in done([Self.result(answer, timeoutMs: timeoutMs, now: clock.now())]) }
    }

    /// One attempt of `delivery`: its payload (signed, at `now` in epoch seconds: the clock's
    /// unless given), header values filled from its event.
    func request(_ delivery: DeliveryRow, now given: Int64? = nil) -> HTTPRequest {
        let now = given ?? clock.now() / 1000
        let fields = Placeholders(delivery.event)
        let body = webhook.method == "GET" ? nil : delivery.payload
        let lines = Self.headers(webhook, key: key, id: delivery.publicID, body: body ?? [], fields: fields, userAgent: userAgent, now: now)
            .map { name, value in "\(name): \(value)" }
        var request = HTTPRequest(method: webhook.method, url: fields.expandURL(webhook.url), headerLines: lines + ["Expect:"], body: body)
        request.connectTimeoutMs = Self.connectTimeoutMs
        request.timeoutMs = Int(webhook.timeoutMs)
        request.bodyLimit = AttemptResult.outputLimit
        request.keptHeaders = ["retry-after"]
        let rules = rules()
        request.addressCheck = { address, port in rules.refusal(address: address, port: port) }
        return request
    }

    /// The handler's headers (values filled in, no CR/LF/NUL: a label cannot start a header of
    /// its own), then the Standard Webhooks ones. A `Content-Type` or `User-Agent` of the
    /// handler's replaces buttond's (each is sent once).
    static func headers(
        _ webhook: WebhookAction, key: HMACKey, id: String, body: [UInt8], fields: Placeholders, userAgent: String, now: Int64
    ) -> [(String, String)] {
        var standard = [
            ("User-Agent", userAgent), ("webhook-id", id), ("webhook-timestamp", String(now)),
            ("webhook-signature", Signature.sign(key: key, id: id, timestamp: now, body: body)),
        ]
        if webhook.method != "GET" { standard.insert(("Content-Type", "application/json"), at: 0) }
        if webhook.headers.isEmpty { return standard }
        let configured = webhook.headers.sorted { $0.key < $1.key }.map { name, value in
            (name, String(fields.interpolate(value).unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0 != "\0" }))
        }
        let given = Set(configured.map { $0.0.lowercased() })
        return configured + standard.filter { !given.contains($0.0.lowercased()) }
    }

    /// What the answer (or its absence) means for the delivery; `now` (epoch ms) is when it
    /// came, what a `Retry-After` date is a wait from.
    static func result(_ answer: Result<HTTPClient.Reply, HTTPClient.Failure>, timeoutMs: Int64, now: Int64) -> AttemptResult {
        switch answer {
        case .success(let reply):
            let output = AttemptResult.text(reply.body)
            if (200..<300).contains(reply.status) { return AttemptResult(outcome: .ok, statusCode: reply.status, output: output) }
            let retryAfter = reply.header("retry-after").flatMap {
                RetryAfter.seconds($0, nowMilliseconds: now)
            }
            return AttemptResult(outcome: .httpStatus, statusCode: reply.status, output: output, retryAfterSeconds: retryAfter)
        case .failure(let failure):
            switch failure.kind {
            case .timedOut: return AttemptResult(outcome: .timeout, output: "no answer within \(timeoutMs) ms")
            case .refused(let reason): return AttemptResult(outcome: .blocked, output: "not sent: the host resolves to \(reason)")
            case .other: return AttemptResult(outcome: .connect, output: failure.curlMessage.isEmpty ? failure.description : failure.curlMessage)
            }
        }
    }
}
