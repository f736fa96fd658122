import Buttons
import MicroHTTP
import Testing

@testable import ButtonServer

/// A refusal reads the same over HTTP and on MQTT's `<base>/error` (which is built from
/// `ButtonsError.status` and `body` in Bridges): one status and one body per error.
@Suite struct ErrorRenderingTests {
    @Test(arguments: [
        (ButtonsError.badRequest("no", field: "x"), 400), (.unauthorized("who?", challenge: "Bearer"), 401), (.forbidden("no"), 403),
        (.notFound("gone"), 404), (.conflict("busy", "busy"), 409), (.invalid("t", "bad t"), 422),
        (.unavailable("later", retryAfter: 2), 503),
    ])
    func theHTTPAnswerIsTheDomainsStatusAndBody(error: ButtonsError, status: Int) {
        #expect(error.status == status)
        #expect(error.httpError.status == status)
        #expect(error.httpError.body == error.body)
    }

    @Test func theHeadersSayWhenAndHow() {
        #expect(ButtonsError.unavailable("later", retryAfter: 2).httpError.headers.map(\.1) == ["2"])
        #expect(ButtonsError.unauthorized("who?", challenge: "Bearer").httpError.headers.map(\.0) == ["WWW-Authenticate"])
    }
}
