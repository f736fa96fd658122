import Buttons
import MicroHTTP

/// The domain's refusals as HTTP answers (SPEC.md §3): the one place a route's error becomes a
/// status, headers and the JSON error body. Routes throw `ButtonsError` only.
extension ButtonsError: HTTPErrorConvertible {
    package var httpError: HTTPError {
        var headers = retryAfter.map { [("Retry-After", String($0))] } ?? []
        if case .unauthorized(let challenge) = kind { headers.append(("WWW-Authenticate", challenge)) }
        return HTTPError(status, code: code, message: message, details: details, headers: headers)
    }
}
