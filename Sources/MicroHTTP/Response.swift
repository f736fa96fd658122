/// What a handler answers: a status, headers, and either bytes or an open event stream.
public struct Response: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        case stream(EventStream)
        /// Answered later, from another thread, through `PendingResponse.complete`.
        case pending(PendingResponse)
    }

    public var status: Int
    public var headers: [(String, String)]
    public var body: Body

    public init(status: Int = 200, headers: [(String, String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func json(_ value: JSONValue, status: Int = 200) -> Response {
        json(bytes: JSONWriter.encode(value), status: status)
    }

    /// Bytes that are already JSON (from a hand-rolled `JSONWriter`).
    public static func json(bytes: [UInt8], status: Int = 200) -> Response {
        Response(status: status, headers: [("Content-Type", "application/json")], body: .bytes(bytes))
    }

    public static func text(_ text: String, status: Int = 200) -> Response {
        Response(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: .bytes(Array(text.utf8)))
    }

    public static let noContent = Response(status: 204)

    /// A response that `pending.complete` supplies later; the connection waits suspended.
    public static func pending(_ pending: PendingResponse) -> Response {
        Response(body: .pending(pending))
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}
