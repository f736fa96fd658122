import JSON

/// What the domain refuses, and why, independent of any protocol: `ButtonServer` renders it
/// as an HTTP status and SPEC.md's JSON error (`kind` decides the status, `code`, `message`
/// and `details` the body).
package struct ButtonsError: Error, Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// The request is not what was asked for (a wrong JSON type): 400.
        case malformed
        case notFound
        /// The state does not allow it (not held, already exists, limit reached): 409.
        case conflict
        /// A value out of range or unknown: 422.
        case invalid
        /// Storage or a queue cannot take it now; try again after `retryAfter` seconds: 503.
        case unavailable
        /// No token, or one that is not valid; `challenge` says how to authenticate: 401.
        case unauthorized(challenge: String)
        /// The token is valid but may not do this: 403.
        case forbidden
    }

    package var kind: Kind
    package var code: String
    package var message: String
    /// Extra members of the error, such as the offending `field` or batch `index`.
    package var details: [String: JSONValue]
    package var retryAfter: Int?

    package init(_ kind: Kind, code: String, message: String, details: [String: JSONValue] = [:], retryAfter: Int? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.details = details
        self.retryAfter = retryAfter
    }

    package static func badRequest(_ message: String, field: String? = nil) -> ButtonsError {
        ButtonsError(.malformed, code: "bad_request", message: message, details: field.map { ["field": .string($0)] } ?? [:])
    }

    package static func notFound(_ message: String) -> ButtonsError {
        ButtonsError(.notFound, code: "not_found", message: message)
    }

    package static func conflict(_ code: String, _ message: String) -> ButtonsError {
        ButtonsError(.conflict, code: code, message: message)
    }

    package static func invalid(_ field: String, _ message: String) -> ButtonsError {
        ButtonsError(.invalid, code: "invalid_value", message: message, details: ["field": .string(field)])
    }

    package static func unauthorized(_ message: String, challenge: String) -> ButtonsError {
        ButtonsError(.unauthorized(challenge: challenge), code: "unauthorized", message: message)
    }

    package static func forbidden(_ message: String) -> ButtonsError {
        ButtonsError(.forbidden, code: "forbidden", message: message)
    }

    package static func unavailable(_ message: String, retryAfter: Int) -> ButtonsError {
        ButtonsError(.unavailable, code: "unavailable", message: message, retryAfter: retryAfter)
    }

    /// The status SPEC.md §3 gives this refusal: what an HTTP client is answered, and the
    /// `status` of a refused MQTT command on `<base>/error`.
    package var status: Int {
        switch kind {
        case .malformed: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .conflict: 409
        case .invalid: 422
        case .unavailable: 503
        }
    }

    /// SPEC.md §3's error body, `{"error": {"code", "message", …details}}`: an HTTP answer's,
    /// and what MQTT's `<base>/error` carries.
    package var body: JSONValue {
        var error = details
        error["code"] = .string(code)
        error["message"] = .string(message)
        return ["error": .object(error)]
    }
}
