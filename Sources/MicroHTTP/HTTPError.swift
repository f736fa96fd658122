/// The transport's error: what the HTTP layer itself refuses (no route, a bad path, a body too
/// large or not JSON, a refused Host or Origin), and the rendering of every other layer's error
/// (`HTTPErrorConvertible`: the domain's `ButtonsError`) as SPEC.md's JSON error shape,
/// `{"error": {"code": …, "message": …}}`, so no route builds an error response by hand.
public struct HTTPError: Error, Sendable, Equatable {
    public var status: Int
    public var code: String
    public var message: String
    /// Extra members of the `error` object, such as the offending `field` or batch `index`.
    public var details: [String: JSONValue]
    public var headers: [(String, String)]

    public init(
        _ status: Int, code: String, message: String,
        details: [String: JSONValue] = [:], headers: [(String, String)] = []
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers
    }

    public static func == (a: HTTPError, b: HTTPError) -> Bool {
        a.status == b.status && a.code == b.code && a.message == b.message && a.details == b.details
    }

    /// A body that is not the JSON it claims to be.
    public static func badRequest(_ message: String) -> HTTPError {
        HTTPError(400, code: "bad_request", message: message)
    }
    public static func notFound(_ message: String) -> HTTPError {
        HTTPError(404, code: "not_found", message: message)
    }
    public static func payloadTooLarge(limit: Int) -> HTTPError {
        HTTPError(413, code: "payload_too_large", message: "request body is over the limit of \(limit) bytes")
    }
    public static func unsupportedMediaType() -> HTTPError {
        HTTPError(415, code: "unsupported_media_type", message: "the body must be JSON (content-type: application/json)")
    }
    /// A form body (`curl -d holdMs=100`): says to send JSON, with the form's own fields as
    /// the example.
    public static func formBody(_ body: [UInt8]) -> HTTPError {
        let pairs = String(decoding: body.prefix(200), as: UTF8.self).split(separator: "&").prefix(3).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            let value = parts.count > 1 ? parts[1] : ""
            let bare = Int64(value) != nil || value == "true" || value == "false"
            return "\"\(parts.first ?? "")\": " + (bare ? value : "\"\(value)\"")
        }
        let example = pairs.isEmpty || pairs.contains { $0.contains("'") } ? #"{"holdMs": 100}"# : "{\(pairs.joined(separator: ", "))}"
        return HTTPError(
            415, code: "unsupported_media_type",
            message: "the body is a form (application/x-www-form-urlencoded), not JSON: send JSON, for example "
                + "curl -H 'content-type: application/json' -d '\(example)'")
    }
    public static func unavailable(_ message: String, retryAfter: Int) -> HTTPError {
        HTTPError(503, code: "unavailable", message: message, headers: [("Retry-After", String(retryAfter))])
    }

    /// The JSON body of this error.
    public var body: JSONValue {
        var inner: [String: JSONValue] = details
        inner["code"] = .string(code)
        inner["message"] = .string(message)
        return .object(["error": .object(inner)])
    }

    public var response: Response {
        var response = Response.json(body, status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}

/// An error of another layer that knows its HTTP rendering: the router answers with it as it
/// does with an `HTTPError`.
public protocol HTTPErrorConvertible: Error {
    var httpError: HTTPError { get }
}
