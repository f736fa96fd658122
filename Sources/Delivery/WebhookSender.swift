import ButtonStore
import CCurl
import CurlHTTP
import FoundationEssentials
import Platform
import Dispatch

/// Sends webhook attempts with libcurl: Standard Webhooks headers, the stored body bytes,
/// no redirects followed, explicit connect and total timeouts. One sender per worker thread:
/// its curl handle keeps connections alive between deliveries to the same receiver.
public final class WebhookSender {

    final class Sink {
        var body: [UInt8] = []
        var retryAfter: Int?
        let limit: Int

        init(limit: Int) { self.limit = limit }
    }

    /// Asked by libcurl about every address it connects to, after name resolution.
    final class Guard {
        let rules: DestinationRules
        /// Why the last refused address was refused.
        var refusal: String?

        init(rules: DestinationRules) { self.rules = rules }
    }

    /// SPEC §5: at most 3 s to connect.
    static let connectTimeoutMs = 3000

    private let handle: UnsafeMutableRawPointer?
    private let destinationGuard: Guard
    private let socketGuard: UnsafeMutablePointer<bd_socket_guard>

    public init(rules: DestinationRules = DestinationRules()) {
        Curl.start()
        handle = curl_easy_init()
        destinationGuard = Guard(rules: rules)
        socketGuard = .allocate(capacity: 1)
        socketGuard.initialize(
            to: bd_socket_guard(
                check: { context, family, bytes, port in
                    guard let context, let bytes else { return 0 }
                    let check = Unmanaged<Guard>.fromOpaque(context).takeUnretainedValue()
                    let address = Array(UnsafeBufferPointer(start: bytes, count: family == AF_INET6 ? 16 : 4))
                    guard let reason = check.rules.refusal(address: address, port: Int(port)) else { return 1 }
                    check.refusal = reason
                    return 0
                }, context: Unmanaged.passUnretained(destinationGuard).toOpaque()))
    }

    deinit {
        curl_easy_cleanup(handle)
        socketGuard.deallocate()
    }

    /// One attempt of `delivery`: its payload (signed), header values filled from `fields`.
    public func send(
        _ webhook: Handler.Webhook, key: [UInt8], delivery: DeliveryRow, fields: Placeholders, userAgent: String,
        now: Int64 = Int64(Date().timeIntervalSince1970)
    ) -> AttemptResult {
        guard let handle else { return AttemptResult(outcome: .connect, output: "libcurl could not start") }
        curl_easy_reset(handle)
        destinationGuard.refusal = nil
        let sink = Sink(limit: AttemptResult.outputLimit)
        let body = webhook.method == "GET" ? [] : delivery.payload
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        for (name, value) in Self.headers(webhook, key: key, id: delivery.publicID, body: body, fields: fields, userAgent: userAgent, now: now) {
            headers = curl_slist_append(headers, "\(name): \(value)")
        }
        headers = curl_slist_append(headers, "Expect:")
        configure(handle, for: webhook, url: fields.expandURL(webhook.url), headers: headers, sink: sink)
        let code: CURLcode = body.withUnsafeBytes { raw in
            if webhook.method != "GET" {
                bd_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, raw.count)
                bd_curl_set_pointer(
                    handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
            }
            return withExtendedLifetime((sink, destinationGuard)) { curl_easy_perform(handle) }
        }
        return result(code, sink: sink, timeoutMs: webhook.timeoutMs)
    }

    /// The handler's headers (values filled in, no CR/LF/NUL: a label cannot start a header of
    /// its own), then the Standard Webhooks ones. A `Content-Type` or `User-Agent` of the
    /// handler's replaces buttond's (each is sent once).
    static func headers(
        _ webhook: Handler.Webhook, key: [UInt8], id: String, body: [UInt8], fields: Placeholders, userAgent: String, now: Int64
    ) -> [(String, String)] {
        var standard = [
            ("User-Agent", userAgent), ("webhook-id", id), ("webhook-timestamp", String(now)),
            ("webhook-signature", Signature.sign(key: key, id: id, timestamp: now, body: body)),
        ]
        if webhook.method != "GET" { standard.insert(("Content-Type", "application/json"), at: 0) }
        let configured = webhook.headers.sorted { $0.key < $1.key }.map { name, value in
            (name, String(fields.interpolate(value).unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0 != "\0" }))
        }
        let given = Set(configured.map { $0.0.lowercased() })
        return configured + standard.filter { !given.contains($0.0.lowercased()) }
    }

    /// Method, URL, timeouts, no redirects, only http(s), the destination guard, and where
    /// the answer goes.
    private func configure(
        _ handle: UnsafeMutableRawPointer, for webhook: Handler.Webhook, url: String, headers: UnsafeMutablePointer<curl_slist>?,
        sink: Sink
    ) {
        bd_curl_set_string(handle, CURLOPT_URL, url)
        switch webhook.method {
        case "GET": bd_curl_set_long(handle, CURLOPT_HTTPGET, 1)
        case "POST": bd_curl_set_long(handle, CURLOPT_POST, 1)
        default:
            bd_curl_set_long(handle, CURLOPT_POST, 1)
            bd_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, webhook.method)
        }
        bd_curl_guard_sockets(handle, socketGuard)
        bd_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        bd_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        bd_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.connectTimeoutMs)
        bd_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Int(webhook.timeoutMs))
        bd_curl_set_long(handle, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
        bd_curl_set_pointer(handle, CURLOPT_HTTPHEADER, headers)
        bd_curl_set_write(handle) { data, size, count, context in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            let n = size * count
            let room = max(0, sink.limit - sink.body.count)
            if room > 0, let data {
                data.withMemoryRebound(to: UInt8.self, capacity: n) { sink.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: min(room, n))) }
            }
            return n
        }
        bd_curl_set_header_callback(handle) { data, size, count, context in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            let n = size * count
            guard let data else { return n }
            data.withMemoryRebound(to: UInt8.self, capacity: n) { start in
                let line = UnsafeBufferPointer(start: start, count: n)
                // Only Retry-After is read; other lines are not made into strings.
                guard line.count > 12, line[11] == UInt8(ascii: ":"),
                    zip(line.prefix(11), "retry-after".utf8).allSatisfy({ $0 | 0x20 == $1 })
                else { return }
                let value = String(decoding: line.dropFirst(12), as: UTF8.self)
                sink.retryAfter = RetryAfter.seconds(value, nowMilliseconds: Int64(Date().timeIntervalSince1970 * 1000))
            }
            return n
        }
        let context = Unmanaged.passUnretained(sink).toOpaque()
        bd_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
        bd_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)
    }

    /// What the transfer's end means for the delivery.
    private func result(_ code: CURLcode, sink: Sink, timeoutMs: Int64) -> AttemptResult {
        let output = AttemptResult.text(sink.body)
        switch code {
        case CURLE_OK:
            let status = bd_curl_response_code(handle)
            if (200..<300).contains(status) { return AttemptResult(outcome: .ok, statusCode: status, output: output) }
            return AttemptResult(outcome: .httpStatus, statusCode: status, output: output, retryAfterSeconds: sink.retryAfter)
        case CURLE_OPERATION_TIMEDOUT:
            return AttemptResult(outcome: .timeout, output: "no answer within \(timeoutMs) ms")
        case CURLE_COULDNT_CONNECT where destinationGuard.refusal != nil:
            return AttemptResult(outcome: .blocked, output: "not sent: the host resolves to \(destinationGuard.refusal ?? "")")
        default:
            let message = String(cString: curl_easy_strerror(code))
            return AttemptResult(outcome: .connect, output: message)
        }
    }
}
