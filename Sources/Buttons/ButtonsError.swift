import JSON

/// What the domain refuses, and why, in no protocol's terms: the kind of refusal and SPEC.md
/// §3's error body (`code`, `message`, `details`). How a protocol says it belongs to its edge:
/// `ErrorStatus` numbers each kind (the HTTP answer's status, and the `status` MQTT's
/// `<base>/error` carries); `ButtonServer` adds the HTTP headers (`ButtonsError+HTTP.swift`).
package struct ButtonsError: Error, Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// The request is not what was asked for (a wrong JSON type).
        case malformed
        case notFound
        /// The state does not allow it (not held, already exists, limit reached).
        case conflict
        /// A value out of range or unknown.
        case invalid
        /// Storage or a queue cannot take it now; try again after `retryAfter` seconds.
        case unavailable
        /// No credential, or one that is not valid (`credential` says which).
        case unauthorized(Credential)
        /// The credential is valid but may not do this.
        case forbidden
    }

    /// What was wrong with the credential of an `unauthorized` refusal: the HTTP edge makes its
    /// `WWW-Authenticate` challenge of it.
    package enum Credential: Sendable, Equatable {
        /// None was presented, and one is needed.
        case missing
        /// One was presented and is not valid (unknown, revoked or expired).
        case rejected
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

    package static func unauthorized(_ message: String, _ credential: Credential) -> ButtonsError {
        ButtonsError(.unauthorized(credential), code: "unauthorized", message: message)
    }

    package static func forbidden(_ message: String) -> ButtonsError {
        ButtonsError(.forbidden, code: "forbidden", message: message)
    }

    package static func unavailable(_ message: String, retryAfter: Int) -> ButtonsError {
        ButtonsError(.unavailable, code: "unavailable", message: message, retryAfter: retryAfter)
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
