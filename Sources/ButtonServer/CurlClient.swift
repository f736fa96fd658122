import CCurl
import FoundationEssentials
import Glibc
import MicroHTTP

/// The client commands' HTTP, through libcurl: `http://` and `https://` (with `--cacert`),
/// IPv6 literals, and proxies from the environment as curl takes them.
final class CurlClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Reply {
        var status: Int
        var body: [UInt8]
        var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }
    }

    /// One server-sent event.
    struct Message {
        var id: String?
        var event: String?
        var data: String
    }

    /// Bytes received, and for a stream, the messages cut out of them as they come.
    final class Sink {
        var bytes: [UInt8] = []
        var onMessage: ((Message) -> Void)?

        func take(_ chunk: UnsafeBufferPointer<UInt8>) {
            bytes.append(contentsOf: chunk)
            guard let onMessage else { return }
            while let end = Self.messageEnd(bytes) {
                let text = String(decoding: bytes[..<end.start], as: UTF8.self)
                bytes.removeFirst(end.next)
                var message = Message(data: "")
                var data: [String] = []
                for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix("data:") { data.append(String(line.dropFirst(5)).trimmingPrefixSpace()) }
                    if line.hasPrefix("id:") { message.id = String(line.dropFirst(3)).trimmingPrefixSpace() }
                    if line.hasPrefix("event:") { message.event = String(line.dropFirst(6)).trimmingPrefixSpace() }
                }
                guard !data.isEmpty else { continue }  // a comment (heartbeat)
                message.data = data.joined(separator: "\n")
                onMessage(message)
            }
        }

        /// Where the first message ends (a blank line) and where the next begins.
        static func messageEnd(_ bytes: [UInt8]) -> (start: Int, next: Int)? {
            var i = 0
            while i + 1 < bytes.count {
                if bytes[i] == 0x0A && bytes[i + 1] == 0x0A { return (i, i + 2) }
                i += 1
            }
            return nil
        }
    }

    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return true
    }()

    let base: String
    let token: String?
    let caFile: String?
    let timeoutSeconds: Int

    init(base: String, token: String?, caFile: String?, timeoutSeconds: Int = 30) {
        _ = Self.initialized
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.token = token
        self.caFile = caFile
        self.timeoutSeconds = timeoutSeconds
    }

    func get(_ path: String) throws(Failure) -> Reply { try request("GET", path, json: nil) }

    func request(_ method: String, _ path: String, json: String?) throws(Failure) -> Reply {
        let sink = Sink()
        let status = try perform(method, path, body: json.map { Array($0.utf8) }, sink: sink, accept: "application/json")
        return Reply(status: status, body: sink.bytes)
    }

    /// Follows an event stream, calling `onMessage` for each message, until the server ends it.
    /// Returns the status (a non-200 answer ends at once).
    func stream(_ path: String, onMessage: @escaping (Message) -> Void) throws(Failure) -> Int {
        let sink = Sink()
        sink.onMessage = onMessage
        return try perform("GET", path, body: nil, sink: sink, accept: "text/event-stream", streaming: true)
    }

    private func perform(
        _ method: String, _ path: String, body: [UInt8]?, sink: Sink, accept: String, streaming: Bool = false
    ) throws(Failure) -> Int {
        guard let handle = curl_easy_init() else { throw Failure(description: "libcurl could not start") }
        defer { curl_easy_cleanup(handle) }
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headers) }
        headers = curl_slist_append(headers, "Accept: \(accept)")
        if body != nil { headers = curl_slist_append(headers, "Content-Type: application/json") }
        if let token { headers = curl_slist_append(headers, "Authorization: Bearer \(token)") }
        headers = curl_slist_append(headers, "Expect:")
        // libcurl writes its message here during the transfer: memory that outlives the call.
        let errors = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errors.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errors.deallocate() }
        bd_curl_set_string(handle, CURLOPT_URL, base + path)
        bd_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, method)
        bd_curl_set_pointer(handle, CURLOPT_HTTPHEADER, headers)
        bd_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        bd_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, 10_000)
        if !streaming { bd_curl_set_long(handle, CURLOPT_TIMEOUT_MS, timeoutSeconds * 1000) }
        bd_curl_set_long(handle, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
        if let caFile { bd_curl_set_string(handle, CURLOPT_CAINFO, caFile) }
        bd_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errors)
        bd_curl_set_write(handle) { data, size, count, context in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            let n = size * count
            if let data {
                data.withMemoryRebound(to: UInt8.self, capacity: n) { sink.take(UnsafeBufferPointer(start: $0, count: n)) }
            }
            return n
        }
        bd_curl_set_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
        let payload = body ?? []
        let code: CURLcode = payload.withUnsafeBytes { raw in
            if body != nil {
                bd_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, raw.count)
                bd_curl_set_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!))
            }
            return withExtendedLifetime(sink) { curl_easy_perform(handle) }
        }
        guard code == CURLE_OK else {
            let detail = String(cString: errors)
            let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            throw Failure(description: "cannot reach \(base): \(reason)")
        }
        return bd_curl_response_code(handle)
    }
}

extension String {
    /// Without the one space an SSE field may have after its colon.
    fileprivate func trimmingPrefixSpace() -> String { hasPrefix(" ") ? String(dropFirst()) : self }
}
