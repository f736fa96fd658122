import Buttons
import MicroHTTP

/// The domain's refusals as HTTP answers (SPEC.md §3): the one place a route's error becomes a
/// status (`ErrorStatus`, which MQTT's `<base>/error` numbers with too), headers and the JSON
/// error body. Routes throw `ButtonsError` only.
extension ButtonsError: HTTPErrorConvertible {
    package var httpError: HTTPError {
        var headers = retryAfter.map { [("Retry-After", String($0))] } ?? []
        if case .unauthorized(let credential) = kind { headers.append(("WWW-Authenticate", credential.challenge)) }
        return HTTPError(ErrorStatus.of(kind), code: code, message: message, details: details, headers: headers)
    }
}

extension ButtonsError.Credential {
    /// The `WWW-Authenticate` header of a 401 (RFC 6750): a bare `Bearer` asks for a token,
    /// `invalid_token` says the one sent is not valid.
    var challenge: String {
        switch self {
        case .missing: "Bearer"
        case .rejected: #"Bearer error="invalid_token""#
        }
    }
}
