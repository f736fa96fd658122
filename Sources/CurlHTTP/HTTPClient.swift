import CCurl
import JSON

/// HTTP through libcurl, for the client commands and the tests: `http://` and `https://`
/// (with a CA file), IPv6 literals, and proxies from the environment as curl takes them.
/// Every call is one transfer on a connection of its own.
public struct HTTPClient: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        /// What a caller that decides on it (the webhook sender) tells apart.
        public enum Kind: Sendable, Equatable {
            case timedOut
            /// The request's `addressCheck` refused every address the host resolves to.
            case refused(String)
            case other
        }

        public var description: String
        public var kind = Kind.other
        /// libcurl's name for what went wrong (`Couldn't connect to server`), without detail.
        public var curlMessage = ""

        public init(description: String) { self.description = description }

        init(description: String, kind: Kind, curlMessage: String) {
            self.description = description
            self.kind = kind
            self.curlMessage = curlMessage
        }
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
/// client and the event loop): `curl_global_init` is not thread-safe, so it runs once,
/// before any handle exists.
public enum Curl {
    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return true
    }()

    /// Call before making a curl handle.
    public static func start() { _ = initialized }
}


extension Transfer {
    /// A request of `client`: its base and token, its CA file, the path as given.
    convenience init(
        _ client: HTTPClient, method: String, path: String, body: [UInt8]?, headers given: [String: String]
    ) throws(HTTPClient.Failure) {
        var request = HTTPRequest(
            method: method, url: client.base + path, headerLines: Self.headerLines(given, token: client.token, hasBody: body != nil),
            body: body)
        request.pathAsIs = true
        request.caFile = client.caFile
        request.verifiesPeer = client.verifiesPeer
        try self.init(request, base: client.base)
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
}
