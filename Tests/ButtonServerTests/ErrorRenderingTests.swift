import Buttons
import MicroHTTP
import Testing

@testable import ButtonServer

/// A refusal reads the same over HTTP and on MQTT's `<base>/error` (which is built from
/// `ErrorStatus` and `ButtonsError.body` in Bridges): one status and one body per error.
@Suite struct ErrorRenderingTests {
    @Test(arguments: [
        (ButtonsError.badRequest("no", field: "x"), 400), (.unauthorized("who?", challenge: "Bearer"), 401), (.forbidden("no"), 403),
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
        #expect(ButtonsError.unauthorized("who?", challenge: "Bearer").httpError.headers.map(\.0) == ["WWW-Authenticate"])
    }

    /// The challenge `Auth` names is the one answered: the domain keeps only whose fault it was.
    @Test(arguments: ["Bearer", #"Bearer error="invalid_token""#])
    func theChallengeIsAnsweredAsAuthNamedIt(challenge: String) {
        let error = ButtonsError.unauthorized("who?", challenge: challenge)
        #expect(error.httpError.headers.map(\.1) == [challenge])
        #expect(error.kind == .unauthorized(challenge == "Bearer" ? .missing : .rejected))
    }
}
