import Buttons
import MicroHTTP
import Platform

/// Event history and the live server-sent event stream.
extension API {
    static func sequence(_ text: String?, name: String) throws(ButtonsError) -> Int64? {
        guard let text else { return nil }
        guard let value = Int64(text), value >= 0 else { throw ButtonsError.invalid(name, "\(name) must be a non-negative integer") }
        return value
    }

    /// The `?button=` (or `?sheet=`) filter: 404 for a name that is neither, so a typo like
    /// `?button=dor` is not a silent empty list.
    static func source(_ request: Request, in registry: Registry) throws(ButtonsError) -> String? {
        let field = request.query["button"] != nil ? "button" : "sheet"
        guard let name = request.query[field] else { return nil }
        guard Names.isValid(name) else { throw ButtonsError.invalid(field, "\(field) must be a button or sheet name") }
        guard (try? registry.button(name)) != nil || (try? registry.sheet(name)) != nil else {
            throw ButtonsError.notFound("no button or sheet named '\(name)' (?\(field)=)")
        }
        return name
    }

    func addEventRoutes(to router: inout APIRouter) {
        let log = self.log
        let streams = self.streams
        let publisher = self.publisher
        let registry = self.registry
        let api = self
        router.get("/api/v1/events", query: ["after", "limit", "offset", "button", "sheet"], access: .read()) { request, grant in
            let after = try Self.sequence(request.query["after"], name: "after")
            let (_, limit) = try Self.page(request, defaultLimit: 100, maxLimit: 1000)
            let source = try Self.source(request, in: registry)
            return api.slowLane.answer(request) {
                let events =
                    if source == nil && grant.isScoped {
                        try log.history(after: after, limit: limit, sources: api.visibleSources(grant))
                    } else {
                        try log.history(after: after, limit: limit, source: source)
                    }
                return .json(bytes: Self.eventsBody(events.map(\.json)))
            }
        }
        router.get("/api/v1/events/stream", query: ["after", "button", "sheet", "access_token"], access: .read()) { request, grant in
            var after = try Self.sequence(request.query["after"], name: "after")
            if let lastID = request.header("last-event-id"), !lastID.isEmpty {
                after = try Self.sequence(lastID, name: "Last-Event-ID")
            }
            let source = try Self.source(request, in: registry)
            let stream = try streams.open()
            stream.send(Array("retry: 1000\n: connected\n\n".utf8))
            publisher.subscribe(
                stream, after: after, source: source, admits: api.admits(grant),
                seesGroup: Self.seesGroup(grant))
            if let name = grant.name { api.auth.named.track(stream, of: name, now: api.auth.clock.now()) }
            return Response(
                status: 200,
                headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no")],
                body: .stream(stream))
        }
    }
}
