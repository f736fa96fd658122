import Buttons
import MicroHTTP

/// Event history and the live server-sent event stream.
extension API {
    static func sequence(_ text: String?, name: String) throws(HTTPError) -> Int64? {
        guard let text else { return nil }
        guard let value = Int64(text), value >= 0 else { throw HTTPError.invalid(name, "\(name) must be a non-negative integer") }
        return value
    }

    static func source(_ request: Request) throws(HTTPError) -> String? {
        guard let name = request.query["button"] ?? request.query["sheet"] else { return nil }
        guard Names.isValid(name) else { throw HTTPError.invalid("button", "button must be a button or sheet name") }
        return name
    }

    func addEventRoutes(to router: inout Router) {
        let log = self.log
        let streams = self.streams
        let publisher = self.publisher
        router.get("/api/v1/events") { request in
            let after = try Self.sequence(request.query["after"], name: "after")
            let (_, limit) = try Self.page(request, defaultLimit: 100, maxLimit: 1000)
            let events = try log.history(after: after, limit: limit, source: try Self.source(request))
            return .json(bytes: Self.eventsBody(events.map(\.json)))
        }
        router.get("/api/v1/events/stream") { request in
            var after = try Self.sequence(request.query["after"], name: "after")
            if let lastID = request.header("last-event-id"), !lastID.isEmpty {
                after = try Self.sequence(lastID, name: "Last-Event-ID")
            }
            let source = try Self.source(request)
            let stream = try streams.open()
            stream.send(Array("retry: 1000\n: connected\n\n".utf8))
            publisher.subscribe(stream, after: after, source: source)
            return Response(
                status: 200,
                headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no")],
                body: .stream(stream))
        }
    }
}
