import Buttons
import Delivery
import MicroHTTP

/// The domain's refusals as HTTP answers (SPEC.md §3).
extension ButtonsError: HTTPErrorConvertible {
    package var httpError: HTTPError {
        let status =
            switch kind {
            case .malformed: 400
            case .notFound: 404
            case .conflict: 409
            case .invalid: 422
            case .unavailable: 503
            }
        return HTTPError(
            status, code: code, message: message, details: details,
            headers: retryAfter.map { [("Retry-After", String($0))] } ?? [])
    }
}

extension EventStream: EventSink {}
extension Dispatcher: DeliveryQueue {}
