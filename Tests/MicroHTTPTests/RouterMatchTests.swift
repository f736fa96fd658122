import MicroHTTP
import Testing

/// The router passes over a route when its last literal's key (length and first seven bytes)
/// is not the path's: what it then matches must be what matching every route would.
@Suite struct RouterMatchTests {
    static let router: Router<Unguarded> = {
        var router = Router()
        for pattern in [
            "/things/{id}/handlers", "/things/{id}/handlerz", "/things/{id}/press",
            "/things/{id}/press-and-hold-for-long", "/things/{id}/press-and-hold-for-lone", "/things/{id}/{part}",
        ] {
            router.get(pattern) { _ in .text(pattern) }
        }
        router.post("/things/{id}/press") { _ in .text("post press") }
        router.get("/") { _ in .text("root") }
        return router
    }()

    static func answer(_ method: String, _ path: String) -> (route: String, status: Int) {
        let routed = router.route(Request(method: method, path: path))
        return (routed.route, routed.response.status)
    }

    @Test(arguments: [
        // Two literals alike in length and first seven bytes: the whole segment decides.
        ("/things/a/handlers", "/things/{id}/handlers"),
        ("/things/a/handlerz", "/things/{id}/handlerz"),
        // Alike in their first seven bytes, not in length; and alike in both but the last byte.
        ("/things/a/press", "/things/{id}/press"),
        ("/things/a/press-and-hold-for-long", "/things/{id}/press-and-hold-for-long"),
        ("/things/a/press-and-hold-for-lone", "/things/{id}/press-and-hold-for-lone"),
        // No literal is the segment: the parameter route, added after them, takes it.
        ("/things/a/handlerx", "/things/{id}/{part}"),
        ("/things/a/pres", "/things/{id}/{part}"),
        ("/things/a/press-and-hold-for-lon", "/things/{id}/{part}"),
        ("/", "/"),
    ])
    func aPathMatchesItsOwnRoute(path: String, route: String) {
        let answer = Self.answer("GET", path)
        #expect(answer.route == route)
        #expect(answer.status == 200)
    }

    /// A POST finds the POST route behind the GET routes alike in key; a method no matching
    /// route has is 405 (the parameter route matches too, so its GET is allowed); more
    /// segments than any route is 404.
    @Test func methodsAreTriedOnTheRoutesTheKeyLeaves() {
        #expect(Self.answer("POST", "/things/a/press").route == "/things/{id}/press")
        #expect(Self.answer("POST", "/things/a/press").status == 200)
        let wrong = Self.answer("DELETE", "/things/a/handlers")
        #expect(wrong.status == 405)
        #expect(Self.answer("GET", "/things/a/b/c").status == 404)
    }
}
