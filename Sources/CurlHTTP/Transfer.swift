import CCurl

/// One libcurl transfer: an `HTTPRequest` set on an easy handle, and the answer's status,
/// headers and body. Run on the caller's thread (`run`) or by `HTTPLoop`, which hands it a
/// handle of its pool and calls `finish` when libcurl is done with it.
final class Transfer: @unchecked Sendable {  // run by one thread at a time; `socket` is read by others

    let handle: UnsafeMutableRawPointer
    /// False for a handle of `HTTPLoop`'s pool, which outlives the transfer.
    private let ownsHandle: Bool
    private var requestHeaders: UnsafeMutablePointer<curl_slist>?
    /// The body, in memory that stays put until the transfer ends.
    private let requestBody: UnsafeMutableRawBufferPointer?
    private let errors: UnsafeMutablePointer<CChar>
    private let bodyLimit: Int
    private let keptHeaders: [String]?
    private let addressCheck: HTTPRequest.AddressCheck?
    private var socketGuard: UnsafeMutablePointer<bd_socket_guard>?
    /// Why `addressCheck` refused the last address it refused.
    private var refusal: String?
    /// The connection's descriptor while libcurl has it open (-1 before and after); kept
    /// only by a transfer of its own handle (a connection of the loop's outlives it).
    let socket: UnsafeMutablePointer<bd_socket_slot>
    /// What an error message names: the client's base, else the URL.
    let base: String
    let timeoutMs: Int?

    private(set) var status = 0
    private(set) var headers: [String: String] = [:]
    private(set) var body: [UInt8] = []
    /// Takes the body as it arrives instead of `body`.
    var onData: ((UnsafeBufferPointer<UInt8>) -> Void)?
    /// Called once the answer's head is complete.
    var onHead: (() -> Void)?

    /// `handle` is one of `HTTPLoop`'s (reset); nil makes one of the transfer's own.
    init(_ request: HTTPRequest, base: String? = nil, handle pooled: UnsafeMutableRawPointer? = nil) throws(HTTPClient.Failure) {
        Curl.start()
        guard let handle = pooled ?? curl_easy_init() else { throw HTTPClient.Failure(description: "libcurl could not start") }
        self.handle = handle
        ownsHandle = pooled == nil
        self.base = base ?? request.url
        timeoutMs = request.timeoutMs
        bodyLimit = request.bodyLimit
        keptHeaders = request.keptHeaders
        addressCheck = request.addressCheck
        requestBody = request.body.map { bytes in
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 1)
            copy.copyBytes(from: bytes)
            return copy
        }
        // libcurl writes its message here during the transfer: memory that outlives the call.
        errors = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errors.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        socket = .allocate(capacity: 1)
        bd_socket_slot_init(socket)
        configure(request)
    }

    deinit {
        if ownsHandle { curl_easy_cleanup(handle) }
        curl_slist_free_all(requestHeaders)
        requestBody?.deallocate()
        errors.deallocate()
        socketGuard?.deallocate()
        bd_socket_slot_destroy(socket)
        socket.deallocate()
    }

    private func configure(_ request: HTTPRequest) {
        for line in request.headerLines { requestHeaders = curl_slist_append(requestHeaders, line) }
        bd_curl_set_string(handle, CURLOPT_URL, request.url)
        if request.pathAsIs { bd_curl_set_long(handle, CURLOPT_PATH_AS_IS, 1) }
        if request.method == "HEAD" {
            bd_curl_set_long(handle, CURLOPT_NOBODY, 1)
        } else {
            bd_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
        }
        if let requestBody, let count = request.body?.count {
            bd_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, count)
            bd_curl_set_pointer(handle, CURLOPT_POSTFIELDS, requestBody.baseAddress)
        }
        bd_curl_set_pointer(handle, CURLOPT_HTTPHEADER, requestHeaders)
        bd_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        bd_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        bd_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, request.connectTimeoutMs)
        if let timeoutMs = request.timeoutMs { bd_curl_set_long(handle, CURLOPT_TIMEOUT_MS, timeoutMs) }
        bd_curl_set_long(handle, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
        if let caFile = request.caFile { bd_curl_set_string(handle, CURLOPT_CAINFO, caFile) }
        if !request.verifiesPeer {
            bd_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 0)
            bd_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 0)
        }
        bd_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errors)
        if ownsHandle { bd_curl_remember_socket(handle, socket) }
        if addressCheck != nil { guardSockets() }
        receive()
    }

    /// libcurl asks `addressCheck` about every address before it opens a socket to it.
    private func guardSockets() {
        let socketGuard = UnsafeMutablePointer<bd_socket_guard>.allocate(capacity: 1)
        socketGuard.initialize(
            to: bd_socket_guard(
                check: { context, family, bytes, port in
                    guard let context, let bytes else { return 0 }
                    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
                    let address = Array(UnsafeBufferPointer(start: bytes, count: family == AF_INET6 ? 16 : 4))
                    guard let reason = transfer.addressCheck?(address, Int(port)) else { return 1 }
                    transfer.refusal = reason
                    return 0
                }, context: Unmanaged.passUnretained(self).toOpaque()))
        self.socketGuard = socketGuard
        bd_curl_guard_sockets(handle, socketGuard)
    }

    /// The answer's head and body come to this transfer.
    private func receive() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        bd_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
        bd_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)
        bd_curl_set_write(handle) { data, size, count, context in Transfer.given(data, size * count, context) { $0.take($1) } }
        bd_curl_set_header_callback(handle) { data, size, count, context in
            Transfer.given(data, size * count, context) { $0.headerLine($1) }
        }
    }

    /// What a libcurl callback was given, to the transfer its context names; answers the
    /// count taken (all of it).
    private static func given(
        _ data: UnsafeMutablePointer<CChar>?, _ count: Int, _ context: UnsafeMutableRawPointer?,
        to body: (Transfer, UnsafeBufferPointer<UInt8>) -> Void
    ) -> Int {
        guard let data, let context else { return count }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        data.withMemoryRebound(to: UInt8.self, capacity: count) { body(transfer, UnsafeBufferPointer(start: $0, count: count)) }
        return count
    }

    /// Runs the transfer to its end on this thread; `timeoutSeconds` nil lets it run as long
    /// as the server sends.
    func run(timeoutSeconds: Int?) throws(HTTPClient.Failure) {
        if let timeoutSeconds { bd_curl_set_long(handle, CURLOPT_TIMEOUT_MS, timeoutSeconds * 1000) }
        let code = withExtendedLifetime(self) { curl_easy_perform(handle) }
        if case .failure(let failure) = finish(code) { throw failure }
    }

    /// The answer, once libcurl has ended the transfer with `code`.
    func finish(_ code: CURLcode) -> Result<HTTPClient.Reply, HTTPClient.Failure> {
        guard code == CURLE_OK else {
            let message = String(cString: curl_easy_strerror(code))
            let detail = String(cString: errors)
            var kind = HTTPClient.Failure.Kind.other
            if code == CURLE_OPERATION_TIMEDOUT { kind = .timedOut }
            if code == CURLE_COULDNT_CONNECT, let refusal { kind = .refused(refusal) }
            return .failure(
                HTTPClient.Failure(
                    description: "cannot reach \(base): \(detail.isEmpty ? message : detail)", kind: kind, curlMessage: message))
        }
        status = bd_curl_response_code(handle)
        return .success(HTTPClient.Reply(status: status, headers: headers, body: body))
    }

    private func take(_ chunk: UnsafeBufferPointer<UInt8>) {
        if let onData {
            onData(chunk)
        } else if body.count < bodyLimit {
            body.append(contentsOf: chunk.prefix(bodyLimit - body.count))
        }
    }

    private func headerLine(_ line: UnsafeBufferPointer<UInt8>) {
        if line.starts(with: "HTTP/".utf8) {  // a new answer (after a 100 Continue): start again
            headers = [:]
            status = String(decoding: line, as: UTF8.self).split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return
        }
        if line.allSatisfy({ $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }) {
            if status >= 200 { onHead?() }
            return
        }
        if let keptHeaders, !keptHeaders.contains(where: { Self.names(line, $0) }) { return }
        let text = String(decoding: line, as: UTF8.self).trimmingSuffix { $0.isNewline }
        guard let colon = text.firstIndex(of: ":") else { return }
        let value = text[text.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
        headers[text[..<colon].lowercased()] = String(value.trimmingSuffix { $0 == " " || $0 == "\t" })
    }

    /// Whether a header line is of `name` (lower case), compared as bytes.
    private static func names(_ line: UnsafeBufferPointer<UInt8>, _ name: String) -> Bool {
        let count = name.utf8.count
        return line.count > count && line[count] == UInt8(ascii: ":") && zip(line, name.utf8).allSatisfy { $0 | 0x20 == $1 | 0x20 }
    }
}

extension StringProtocol {
    fileprivate func trimmingSuffix(while drop: (Character) -> Bool) -> Substring {
        var text = self[...]
        while let last = text.last, drop(last) { text = text.dropLast() }
        return Substring(text)
    }
}
