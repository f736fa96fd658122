import CCurl
import JSON

/// HTTP through libcurl, for the client commands and the tests: `http://` and `https://`
/// (with a CA file), IPv6 literals, and proxies from the environment as curl takes them.
/// Every call is one transfer on a connection of its own.
public struct HTTPClient: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public struct Reply: Sendable {
        public var status: Int
        /// Names in lower case; of a repeated header, the last.
        public var headers: [String: String]
        public var body: [UInt8]

        public init(status: Int, headers: [String: String], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        public var text: String { String(decoding: body, as: UTF8.self) }
        public var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }
        public func header(_ name: String) -> String? { headers[name.lowercased()] }
        /// The `error.code` of a JSON error answer.
        public var errorCode: String? {
            if case .string(let code)? = json["error"]?["code"] { return code }
            return nil
        }
    }

    /// Scheme, host and port, without a trailing slash: `https://[::1]:8443`.
    public let base: String
    public var token: String?
    /// A PEM file of the certificates to trust for `https://`.
    public var caFile: String?
    public var timeoutSeconds: Int
    /// False only for a probe of the server on this machine (`buttond health`), whose
    /// certificate names the host as the world knows it, not 127.0.0.1.
    public var verifiesPeer = true

    public init(base: String, token: String? = nil, caFile: String? = nil, timeoutSeconds: Int = 30) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.token = token
        self.caFile = caFile
        self.timeoutSeconds = timeoutSeconds
    }

    public init(host: String = "127.0.0.1", port: Int, token: String? = nil, timeoutSeconds: Int = 10) {
        self.init(base: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)", token: token, timeoutSeconds: timeoutSeconds)
    }

    @discardableResult
    public func request(
        _ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:]
    ) throws(Failure) -> Reply {
        let transfer = try Transfer(self, method: method, path: path, body: body, headers: headers)
        try transfer.run(timeoutSeconds: timeoutSeconds)
        return Reply(status: transfer.status, headers: transfer.headers, body: transfer.body)
    }

    @discardableResult
    public func request(_ method: String, _ path: String, json: String, headers: [String: String] = [:]) throws(Failure) -> Reply {
        try request(method, path, body: Array(json.utf8), headers: headers)
    }

    public func get(_ path: String) throws(Failure) -> Reply { try request("GET", path) }

    /// Follows an event stream on this thread, calling `onMessage` for each block (comments
    /// too) until the server ends it. Returns the status: a non-200 answer ends at once.
    public func follow(
        _ path: String, headers: [String: String] = [:], onMessage: @escaping (EventMessage) -> Void
    ) throws(Failure) -> Int {
        let transfer = try Transfer(self, method: "GET", path: path, body: nil, headers: Self.streamHeaders(headers))
        var parser = EventMessage.Parser()
        transfer.onData = { chunk in
            for message in parser.take(chunk) { onMessage(message) }
        }
        try transfer.run(timeoutSeconds: nil)
        return transfer.status
    }

    /// Opens an event stream to read block by block; its transfer runs on a thread of its own.
    public func stream(_ path: String, headers: [String: String] = [:]) throws(Failure) -> StreamReader {
        try StreamReader(
            Transfer(self, method: "GET", path: path, body: nil, headers: Self.streamHeaders(headers)),
            timeoutSeconds: timeoutSeconds)
    }

    static func streamHeaders(_ headers: [String: String]) -> [String: String] {
        headers.merging(["Accept": "text/event-stream"]) { given, _ in given }
    }
}

/// libcurl's global state, set up once for every user of libcurl in the process (this
/// client and the webhook sender): `curl_global_init` is not thread-safe, so it runs once,
/// before any handle exists.
public enum Curl {
    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return true
    }()

    /// Call before making a curl handle.
    public static func start() { _ = initialized }
}

/// One libcurl transfer: the request as given, the answer's status, headers and body.
final class Transfer: @unchecked Sendable {  // run by one thread; `socket` is read by others

    private let handle: UnsafeMutableRawPointer
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    private let requestBody: [UInt8]?
    private let errors: UnsafeMutablePointer<CChar>
    /// The connection's descriptor while libcurl has it open (-1 before and after).
    let socket: UnsafeMutablePointer<bd_socket_slot>
    let base: String

    private(set) var status = 0
    private(set) var headers: [String: String] = [:]
    private(set) var body: [UInt8] = []
    /// Takes the body as it arrives instead of `body`.
    var onData: ((UnsafeBufferPointer<UInt8>) -> Void)?
    /// Called once the answer's head is complete.
    var onHead: (() -> Void)?

    init(_ client: HTTPClient, method: String, path: String, body: [UInt8]?, headers given: [String: String]) throws(HTTPClient.Failure) {
        Curl.start()
        guard let handle = curl_easy_init() else { throw HTTPClient.Failure(description: "libcurl could not start") }
        self.handle = handle
        base = client.base
        requestBody = body
        // libcurl writes its message here during the transfer: memory that outlives the call.
        errors = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errors.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        socket = .allocate(capacity: 1)
        bd_socket_slot_init(socket)

        for line in Self.headerLines(given, token: client.token, hasBody: body != nil) {
            requestHeaders = curl_slist_append(requestHeaders, line)
        }
        bd_curl_set_string(handle, CURLOPT_URL, base + path)
        bd_curl_set_long(handle, CURLOPT_PATH_AS_IS, 1)
        if method == "HEAD" {
            bd_curl_set_long(handle, CURLOPT_NOBODY, 1)
        } else {
            bd_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, method)
        }
        bd_curl_set_pointer(handle, CURLOPT_HTTPHEADER, requestHeaders)
        bd_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        bd_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, 10_000)
        bd_curl_set_long(handle, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
        if let caFile = client.caFile { bd_curl_set_string(handle, CURLOPT_CAINFO, caFile) }
        if !client.verifiesPeer {
            bd_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 0)
            bd_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 0)
        }
        bd_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errors)
        bd_curl_remember_socket(handle, socket)
        if let requestBody {
            bd_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, requestBody.count)
        }
        receive()
    }

    /// The request's header lines: the caller's, then the token, a JSON content type for a
    /// body, and no `Expect: 100-continue` unless asked for.
    static func headerLines(_ given: [String: String], token: String?, hasBody: Bool) -> [String] {
        var headers = given
        let names = Set(given.keys.map { $0.lowercased() })
        if let token, !names.contains("authorization") { headers["Authorization"] = "Bearer \(token)" }
        if hasBody, !names.contains("content-type") { headers["Content-Type"] = "application/json" }
        if !names.contains("expect") { headers["Expect"] = "" }
        return headers.sorted(by: { $0.key < $1.key }).map { name, value in
            // "Name:" would remove curl's own header of that name; "Name;" sends it empty.
            value.isEmpty && name != "Expect" ? "\(name);" : "\(name): \(value)"
        }
    }

    /// The answer's head and body come to this transfer.
    private func receive() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        bd_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
        bd_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)
        bd_curl_set_write(handle) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let n = size * count
            guard let data else { return n }
            data.withMemoryRebound(to: UInt8.self, capacity: n) { transfer.take(UnsafeBufferPointer(start: $0, count: n)) }
            return n
        }
        bd_curl_set_header_callback(handle) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let n = size * count
            guard let data else { return n }
            let line = data.withMemoryRebound(to: UInt8.self, capacity: n) { String(decoding: UnsafeBufferPointer(start: $0, count: n), as: UTF8.self) }
            transfer.headerLine(line)
            return n
        }
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(requestHeaders)
        errors.deallocate()
        bd_socket_slot_destroy(socket)
        socket.deallocate()
    }

    /// Runs the transfer to its end; `timeoutSeconds` nil lets it run as long as the server sends.
    func run(timeoutSeconds: Int?) throws(HTTPClient.Failure) {
        if let timeoutSeconds { bd_curl_set_long(handle, CURLOPT_TIMEOUT_MS, timeoutSeconds * 1000) }
        let code: CURLcode = (requestBody ?? []).withUnsafeBytes { raw in
            if requestBody != nil {
                let start = raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
                bd_curl_set_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: start))
            }
            return withExtendedLifetime(self) { curl_easy_perform(handle) }
        }
        guard code == CURLE_OK else {
            let detail = String(cString: errors)
            let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            throw HTTPClient.Failure(description: "cannot reach \(base): \(reason)")
        }
        status = bd_curl_response_code(handle)
    }

    private func take(_ chunk: UnsafeBufferPointer<UInt8>) {
        if let onData { onData(chunk) } else { body.append(contentsOf: chunk) }
    }

    private func headerLine(_ raw: String) {
        let line = raw.trimmingSuffix { $0.isNewline }
        if line.hasPrefix("HTTP/") {  // a new answer (after a 100 Continue): start again
            headers = [:]
            status = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        } else if line.isEmpty {
            if status >= 200 { onHead?() }
        } else if let colon = line.firstIndex(of: ":") {
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers[line[..<colon].lowercased()] = String(value.trimmingSuffix { $0 == " " || $0 == "\t" })
        }
    }
}

extension StringProtocol {
    fileprivate func trimmingSuffix(while drop: (Character) -> Bool) -> Substring {
        var text = self[...]
        while let last = text.last, drop(last) { text = text.dropLast() }
        return Substring(text)
    }
}
