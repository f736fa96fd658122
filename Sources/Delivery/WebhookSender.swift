import CCurl
import FoundationEssentials
import Glibc
import Dispatch

/// Sends webhook attempts with libcurl: Standard Webhooks headers, the stored body bytes,
/// no redirects followed, explicit connect and total timeouts. One sender per worker thread:
/// its curl handle keeps connections alive between deliveries to the same receiver.
public final class WebhookSender {
    /// libcurl's global init is not thread-safe; it runs once, before any handle exists.
    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return true
    }()

    final class Sink {
        var body: [UInt8] = []
        var retryAfter: Int?
        let limit: Int

        init(limit: Int) { self.limit = limit }
    }

    private let handle: UnsafeMutableRawPointer?

    public init() {
        _ = Self.initialized
        handle = curl_easy_init()
    }

    deinit { curl_easy_cleanup(handle) }

    public func send(
        _ webhook: HandlerSpec.Webhook, deliveryID: String, body: [UInt8], userAgent: String, now: Int64 = Int64(Date().timeIntervalSince1970)
    ) -> AttemptResult {
        guard let handle else { return AttemptResult(outcome: .connect, output: "libcurl could not start") }
        curl_easy_reset(handle)
        let sink = Sink(limit: AttemptResult.outputLimit)
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        let standard = [
            ("Content-Type", "application/json"), ("User-Agent", userAgent), ("webhook-id", deliveryID),
            ("webhook-timestamp", String(now)),
            ("webhook-signature", Signature.sign(key: webhook.key, id: deliveryID, timestamp: now, body: body)),
        ]
        for (name, value) in webhook.headers + standard { headers = curl_slist_append(headers, "\(name): \(value)") }
        headers = curl_slist_append(headers, "Expect:")

        bd_curl_set_string(handle, CURLOPT_URL, webhook.url)
        bd_curl_set_long(handle, CURLOPT_POST, 1)
        bd_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        bd_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        bd_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, webhook.connectTimeoutMs)
        bd_curl_set_long(handle, CURLOPT_TIMEOUT_MS, webhook.timeoutMs)
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
            if let data {
                let line = data.withMemoryRebound(to: UInt8.self, capacity: n) { String(decoding: UnsafeBufferPointer(start: $0, count: n), as: UTF8.self) }
                if line.lowercased().hasPrefix("retry-after:") {
                    sink.retryAfter = RetryAfter.seconds(String(line.dropFirst(12)), nowMilliseconds: Int64(Date().timeIntervalSince1970 * 1000))
                }
            }
            return n
        }
        let context = Unmanaged.passUnretained(sink).toOpaque()
        bd_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
        bd_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)

        let code: CURLcode = body.withUnsafeBytes { raw in
            bd_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, raw.count)
            bd_curl_set_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
            return withExtendedLifetime(sink) { curl_easy_perform(handle) }
        }
        let output = AttemptResult.text(sink.body)
        switch code {
        case CURLE_OK:
            let status = bd_curl_response_code(handle)
            if (200..<300).contains(status) { return AttemptResult(outcome: .ok, statusCode: status, output: output) }
            return AttemptResult(outcome: .httpStatus, statusCode: status, output: output, retryAfterSeconds: sink.retryAfter)
        case CURLE_OPERATION_TIMEDOUT:
            return AttemptResult(outcome: .timeout, output: "no answer within \(webhook.timeoutMs) ms")
        default:
            let message = String(cString: curl_easy_strerror(code))
            return AttemptResult(outcome: .connect, output: message)
        }
    }
}
