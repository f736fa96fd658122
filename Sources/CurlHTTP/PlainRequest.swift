import CCurl
import Platform

/// A request `PlainHTTP` sends itself instead of libcurl, as the bytes that go on the wire:
/// only what it can send exactly as libcurl would and needs no more than a socket for — plain
/// `http://` to an IP literal (nothing to resolve, no TLS), no user info, a path and query of
/// RFC 3986's characters without dot segments (libcurl would squash them), a method a webhook
/// may have, and no proxy in the environment (libcurl would go through it). Anything else is
/// nil and goes to libcurl. The head is libcurl's: `Host` (without port 80), `Accept: */*` and
/// for a body its `Content-Length` (and libcurl's form content type when none is given), then
/// the request's own lines, an empty value sent for `Name;` and `Name:` sending nothing.
struct PlainRequest {
    struct Endpoint: Hashable {
        /// 4 bytes (IPv4) or 16 (IPv6), in network order.
        let address: [UInt8]
        let port: Int
    }

    let endpoint: Endpoint
    let bytes: [UInt8]
    /// What an error message names: scheme, host and port.
    let base: String
    let connectTimeoutMs: Int
    let timeoutMs: Int?
    let bodyLimit: Int
    let keptHeaders: [String]?
    let addressCheck: HTTPRequest.AddressCheck?

    static let methods: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE"]

    /// Whether a proxy variable is set in this process's environment (read once): libcurl
    /// would send through it, so every request then goes to libcurl.
    static let proxied: Bool = ["http_proxy", "all_proxy", "ALL_PROXY"].contains { (name: String) in
        getenv(name).map { $0.pointee != 0 } ?? false
    }

    init?(_ request: HTTPRequest) {
        guard !Self.proxied, Self.methods.contains(request.method), let url = URLParts(request.url),
            url.scheme == "http", url.userInfo == nil, let endpoint = Self.endpoint(url),
            let target = Self.target(url.rest)
        else { return nil }
        self.endpoint = endpoint
        base = String(url.head)
        connectTimeoutMs = request.connectTimeoutMs
        timeoutMs = request.timeoutMs
        bodyLimit = request.bodyLimit
        keptHeaders = request.keptHeaders
        addressCheck = request.addressCheck
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512 + (request.body?.count ?? 0))
        bytes += request.method.utf8
        bytes.append(0x20)
        bytes += target.utf8
        bytes += " HTTP/1.1\r\nHost: ".utf8
        bytes += url.authority.utf8
        bytes += Self.lineEnd
        var given = Given()
        for line in request.headerLines {
            let taken = line.utf8.withContiguousStorageIfAvailable { Self.append(line: $0, to: &bytes, given: &given) }
            guard taken ?? Self.append(line: Array(line.utf8)[...], to: &bytes, given: &given) else { return nil }
        }
        if !given.accept { bytes += "Accept: */*\r\n".utf8 }
        if let body = request.body {
            if !given.contentLength { bytes += "Content-Length: \(body.count)\r\n".utf8 }
            if !given.contentType { bytes += "Content-Type: application/x-www-form-urlencoded\r\n".utf8 }
        }
        bytes += Self.lineEnd
        if let body = request.body { bytes += body }
        self.bytes = bytes
    }

    /// Which of libcurl's own headers the request's lines name.
    private struct Given {
        var accept = false
        var contentLength = false
        var contentType = false
    }

    private static let lineEnd: [UInt8] = [0x0D, 0x0A]


    /// Appends one of the request's header lines as libcurl sends it (`Name: value` as it is,
    /// `Name;` as `Name:`, nothing for `Name:` and blanks); false for a line it would read
    /// otherwise.
    private static func append(line: some Collection<UInt8>, to bytes: inout [UInt8], given: inout Given) -> Bool {
        guard let end = line.firstIndex(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ";") }) else { return false }
        let name = line[..<end]
        guard !name.isEmpty, !name.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return false }
        if name.equalsIgnoringCase("accept") { given.accept = true }
        if name.equalsIgnoringCase("content-length") { given.contentLength = true }
        if name.equalsIgnoringCase("content-type") { given.contentType = true }
        let value = line[line.index(after: end)...].drop { $0 == 0x20 || $0 == 0x09 }
        guard !value.contains(where: { $0 == 0x0D || $0 == 0x0A }) else { return false }
        if line[end] == UInt8(ascii: ";") {
            guard value.isEmpty else { return false }
            bytes += name
            bytes += ":\r\n".utf8
        } else if !value.isEmpty {
            bytes += line
            bytes += lineEnd
        }
        return true
    }


    /// An IP literal's bytes and the port (80 when none is written).
    private static func endpoint(_ url: URLParts) -> Endpoint? {
        let port: Int
        if url.afterHost.isEmpty {
            port = 80
        } else if let number = url.portNumber {
            port = number
        } else {
            return nil
        }
        var v4 = in_addr()
        var v6 = in6_addr()
        let host = String(url.host)
        if !url.isBracketed, inet_pton(AF_INET, host, &v4) == 1 {
            return Endpoint(address: withUnsafeBytes(of: &v4) { Array($0) }, port: port)
        }
        if url.isBracketed, inet_pton(AF_INET6, host, &v6) == 1 {
            return Endpoint(address: withUnsafeBytes(of: &v6) { Array($0) }, port: port)
        }
        return nil
    }

    /// The request target: path (`/` when none) and query, without the fragment; nil for a
    /// character outside RFC 3986's or a dot segment.
    private static func target(_ rest: Substring) -> String? {
        let utf8 = rest.utf8
        let withoutFragment = utf8.firstIndex(of: UInt8(ascii: "#")).map { rest[..<$0] } ?? rest
        guard withoutFragment.utf8.allSatisfy(isAllowed) else { return nil }
        let path = withoutFragment.utf8.firstIndex(of: UInt8(ascii: "?")).map { withoutFragment.utf8[..<$0] } ?? withoutFragment.utf8
        let isDotSegment: (Substring.UTF8View.SubSequence) -> Bool = { $0.count <= 2 && !$0.isEmpty && $0.allSatisfy { $0 == UInt8(ascii: ".") } }
        guard !path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).contains(where: isDotSegment) else { return nil }
        return withoutFragment.utf8.first == UInt8(ascii: "/") ? String(withoutFragment) : "/" + withoutFragment
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~!$&'()*+,;=:@/?%".utf8.contains(byte)
        }
    }
}

extension Collection<UInt8> {
    /// Whether these bytes are `lower` (ASCII, lower case), ignoring the case of letters.
    func equalsIgnoringCase(_ lower: String) -> Bool {
        count == lower.utf8.count && zip(self, lower.utf8).allSatisfy { byte, other in
            (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == other
        }
    }
}

/// Why `PlainHTTP` got no answer, as the libcurl error of the same cause.
enum PlainFailure: Equatable, Error {
    case connect(Int32)
    case send(Int32)
    case receive
    case gotNothing
    case weirdReply
    case partial
    case tooLargeHead
    case timedOut(afterMs: Int)
    case refused(String)

    var code: CURLcode {
        switch self {
        case .connect, .refused: CURLE_COULDNT_CONNECT
        case .send: CURLE_SEND_ERROR
        case .receive, .tooLargeHead: CURLE_RECV_ERROR
        case .gotNothing: CURLE_GOT_NOTHING
        case .weirdReply: CURLE_WEIRD_SERVER_REPLY
        case .partial: CURLE_PARTIAL_FILE
        case .timedOut: CURLE_OPERATION_TIMEDOUT
        }
    }

    /// The failure as `HTTPClient` reports libcurl's: its kind, libcurl's message for the code.
    func failure(base: String) -> HTTPClient.Failure {
        let message = String(cString: curl_easy_strerror(code))
        let detail: String
        var kind = HTTPClient.Failure.Kind.other
        switch self {
        case .connect(let number): detail = "Failed to connect: \(String(cString: strerror(number)))"
        case .send(let number): detail = "\(message): \(String(cString: strerror(number)))"
        case .tooLargeHead: detail = "Too large response headers"
        case .timedOut(let milliseconds):
            detail = "Operation timed out after \(milliseconds) milliseconds"
            kind = .timedOut
        case .refused(let reason):
            detail = "not connected: \(reason)"
            kind = .refused(reason)
        default: detail = message
        }
        return HTTPClient.Failure(description: "cannot reach \(base): \(detail)", kind: kind, curlMessage: message)
    }
}
