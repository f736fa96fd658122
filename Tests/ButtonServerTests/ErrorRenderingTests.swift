import Buttons
import MicroHTTP
import Testing

@testable import ButtonServer

/// A refusal reads the same over HTTP and on MQTT's `<base>/error` (which is built from
/// `ErrorStatus` and `ButtonsError.body` in Bridges): one status and one body per error.
@Suite struct ErrorRenderingTests {
    @Test(arguments: [
        (ButtonsError.badRequest("no", field: "x"), 400), (.unauthorized("who?", .missing), 401), (.forbidden("no"), 403),
        (.notFound("gone"), 404), (.conflict("busy", "busy"), 409), (.invalid("t", "bad t"), 422),
        (.unavailable("later", retryAfter: 2), 503),
    ])
    func theHTTPAnswerIsTheDomainsStatusAndBody(error: ButtonsError, status: Int) {
        #expect(ErrorStatus.of(error.kind) == status)
        #expect(error.httpError.status == status)
        #expect(error.httpError.body == error.body)
    }

    @Test func theHeadersSayWhenAndHow() {
        #expect(ButtonsError.unavailable("later", retryAfter: 2).httpError.headers.map(\.1) == ["2"])
        #expect(ButtonsError.unauthorized("who?", .missing).httpError.headers.map(\.0) == ["WWW-Authenticate"])
    }

    /// The domain says whose fault it was; the edge answers RFC 6750's challenge for it: a bare
    /// `Bearer` asks for a token, `invalid_token` says the one sent is not valid.
    @Test(arguments: [(ButtonsError.Credential.missing, "Bearer"), (.rejected, #"Bearer error="invalid_token""#)])
    func theChallengeSaysWhoseFaultItWas(credential: ButtonsError.Credential, challenge: String) {
        let error = ButtonsError.unauthorized("who?", credential)
        #expect(error.httpError.headers.map(\.1) == [challenge])
        #expect(error.kind == .unauthorized(credential))
    }
}
