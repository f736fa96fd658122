import Buttons
import Delivery
import MicroHTTP

/// The domain's refusals as HTTP answers (SPEC.md §3): the one place a route's error becomes a
/// status, headers and the JSON error body. Routes throw `ButtonsError` only.
extension ButtonsError: HTTPErrorConvertible {
    package var httpError: HTTPError {
        var headers = retryAfter.map { [("Retry-After", String($0))] } ?? []
        let status: Int
        switch kind {
        case .malformed: status = 400
        case .unauthorized(let challenge):
            status = 401
            headers.append(("WWW-Authenticate", challenge))
        case .forbidden: status = 403
        case .notFound: status = 404
        case .conflict: status = 409
        case .invalid: status = 422
        case .unavailable: status = 503
        }
        return HTTPError(status, code: code, message: message, details: details, headers: headers)
    }
}

extension EventStream: EventSink {}
extension Dispatcher: DeliveryQueue {}
