import Handlers
import Outbox
import Buttons
import ButtonEngine
import ButtonStore
import Delivery
import MicroHTTP
import Bridges

/// Handlers on buttons and sheets, and the delivery log.
extension API {
    /// A delivery as the log shows it, with where it stands now.
    func deliveryJSON(_ row: DeliveryRow, for viewer: Viewer = .admin) -> JSONValue {
        let (status, waitingFor) = dispatcher.live(row)
        var object: [String: JSONValue] = [
            "id": .string(row.publicID), "handler": .string(row.handler), "status": .string(status.name),
            "attempts": .int(Int64(row.attempts)), "nextAttemptAt": .int(row.nextAttemptAt), "createdAt": .int(row.createdAt),
            "eventSeq": .int(row.event.seq), "eventId": .string(row.event.id), "type": .string(row.event.type.rawValue),
        ]
        object[row.event.source.kind] = .string(row.event.source.id)
        if let waitingFor { object["waitingFor"] = .string(DeliveryRow.publicID(waitingFor)) }
        if let outcome = row.lastOutcome { object["outcome"] = .string(outcome) }
        if let code = row.lastStatusCode { object["statusCode"] = .int(Int64(code)) }
        if let code = row.lastExitCode { object["exitCode"] = .int(Int64(code)) }
        if let target = target(of: row.handler, for: viewer) { object["target"] = .string(target) }
        return .object(object)
    }

    /// Where a delivery goes, for the log: a handler's `POST http://host/path` or `script name`,
    /// or the kind of a target of the server's own (`mqtt`).
    func target(of handler: String, for viewer: Viewer) -> String? {
        (try? handlers.get(handler))?.target(for: viewer) ?? dispatcher.kind(of: handler)
    }

    /// What a handler is judged by, on every way in (its route, `PUT /api/v1/config`): the
    /// scripts directory and where webhooks may go.
    func handlerContext() -> Handler.Context {
        Handler.Context(scriptsDir: options.scriptsDir, destinations: destinations.withLock { $0 })
    }

    /// `handlerContext()` for a handler of `owner`, which must exist (a sheet's options with it).
    func context(for owner: Source) throws(ButtonsError) -> Handler.Context {
        var context = handlerContext()
        switch owner {
        case .button(let id):
            _ = try registry.button(id)
        case .sheet(let id):
            let slot = try registry.sheet(id)
            context.sheetOptions = slot.locked { slot.definition.options.map(\.id) }
        }
        return context
    }

    func delivery(_ id: String) throws(ButtonsError) -> DeliveryRow {
        let row: DeliveryRow?
        do { row = try DeliveryRow.id(publicID: id).flatMap(registry.store.delivery(id:)) } catch { throw Registry.storageError(error) }
        guard let row else { throw ButtonsError.notFound("no delivery with id '\(id)'") }
        return row
    }

    func addHandlerRoutes(to router: inout APIRouter) {
        let api = self
        let handlers = self.handlers
        let dispatcher = self.dispatcher
        let clock = sequencer.clock
        for (kind, makeOwner, object) in [
            ("buttons", Source.button, Access.Object.button(parameter: "id")), ("sheets", Source.sheet, .sheet(parameter: "id")),
        ] {
            router.get("/api/v1/\(kind)/{id}/handlers", access: .read(object)) { request, grant in
                let owner = makeOwner(request.parameter("id"))
                _ = try api.context(for: owner)
                let viewer = Viewer(grant)
                return .json(["handlers": .array(handlers.list(owner: owner).map { api.views.handler($0, for: viewer) })])
            }
            router.post("/api/v1/\(kind)/{id}/handlers", access: .admin(object)) { request, _ in
                let owner = makeOwner(request.parameter("id"))
                let definition = try Handler.create(from: try request.json(), owner: owner, context: try api.context(for: owner))
                let secret = try handlers.add(definition)
                guard case .object(var object) = definition.json else { return .json(definition.json, status: 201) }
                if let secret { object["secret"] = .string(secret) }
                var response = Response.json(.object(object), status: 201)
                response.headers.append(("Location", "/api/v1/handlers/\(definition.id)"))
                return response
            }
        }
        router.get("/api/v1/handlers/{hid}", access: .read(.handler(parameter: "hid"))) { request, grant in
            .json(api.views.handler(try handlers.get(request.parameter("hid")), for: Viewer(grant)))
        }
        router.patch("/api/v1/handlers/{hid}", access: .admin(.handler(parameter: "hid"))) { request, _ in
            let body = try request.json()
            let current = try handlers.get(request.parameter("hid"))
            let context = try api.context(for: current.owner)
            let updated = try handlers.update(current.id) { (definition: inout Handler) throws(ButtonsError) in
                try definition.patch(with: body, context: context)
            }
            if updated.enabled { dispatcher.wake() }
            if updated.enabled != current.enabled {
                if updated.enabled { api.views.health.forget(updated.id) }  // enabled again: a fresh start
                api.views.announce(owner: updated.owner)
            }
            return .json(api.views.handler(updated))
        }
        let sequencer = self.sequencer
        router.delete("/api/v1/handlers/{hid}", access: .admin(.handler(parameter: "hid"))) { request, _ in
            // Between batches: a batch being applied may already have made deliveries for it.
            let handler = try handlers.get(request.parameter("hid"))
            try sequencer.exclusive { () throws(ButtonsError) in try handlers.delete(handler.id) }
            api.views.health.forget(handler.id)
            api.views.announce(owner: handler.owner)
            return .noContent
        }
        router.post("/api/v1/handlers/{hid}/rotate-secret", access: .admin(.handler(parameter: "hid"))) { request, _ in
            .json(["id": .string(request.parameter("hid")), "secret": .string(try handlers.rotateSecret(request.parameter("hid")))])
        }
        router.post("/api/v1/handlers/{hid}/test", access: .admin(.handler(parameter: "hid"))) { request, _ in
            .json(api.deliveryJSON(try handlers.testDelivery(request.parameter("hid"), now: clock.now())), status: 202)
        }
        addDeliveryRoutes(to: &router)
    }

    /// The delivery log: newest first, read beside the writer (unfinished ones from memory).
    func addDeliveryRoutes(to router: inout APIRouter) {
        let api = self
        let handlers = self.handlers
        let dispatcher = self.dispatcher
        let store = registry.store
        let clock = sequencer.clock
        router.get(
            "/api/v1/deliveries", query: ["handler", "status", "kind", "button", "sheet", "limit", "offset", "before"],
            access: .read()
        ) { request, grant in
            let (_, limit) = try API.page(request, defaultLimit: 100, maxLimit: 1000)
            let filter = try DeliveryLogFilter(query: request.query, handlers: handlers, mqttTarget: MQTTEventSender.targetID)
            return api.slowLane.answer(request) {
                let rows = try filter.rows(dispatcher: dispatcher, store: store, limit: limit)
                let viewer = Viewer(grant)
                let shown = rows.filter { api.sees($0, grant) }
                var page: [String: JSONValue] = ["deliveries": .array(shown.map { api.deliveryJSON($0, for: viewer) })]
                if rows.count == limit, let last = rows.last { page["next"] = .string(last.publicID) }
                return .json(.object(page))
            }
        }
        router.get("/api/v1/deliveries/{did}", access: .read(.delivery(parameter: "did"))) { request, grant in
            let row = try api.delivery(request.parameter("did"))
            let attempts: [StoredAttempt]
            do { attempts = try store.attempts(delivery: row.id) } catch { throw Registry.storageError(error) }
            let viewer = Viewer(grant)
            guard case .object(var object) = api.deliveryJSON(row, for: viewer) else { throw ButtonsError.notFound("no delivery") }
            object["attempts"] = .array(attempts.map { $0.json(for: viewer) })
            object["event"] = (try? JSONParser.parse(row.event.json)) ?? .null
            // The rendered body is the template filled in: what the admin wrote, credentials and all.
            if let body = row.body { object["body"] = viewer.shown((try? JSONParser.parse(body)) ?? .null) }
            return .json(.object(object))
        }
        router.post("/api/v1/deliveries/{did}/redeliver", access: .admin(.delivery(parameter: "did"))) { request, _ in
            let id = request.parameter("did")
            let result: Dispatcher.RedeliverResult
            do {
                guard let key = DeliveryRow.id(publicID: id) else { throw ButtonsError.notFound("no delivery with id '\(id)'") }
                result = try dispatcher.redeliver(key, now: clock.now())
            } catch let error as StoreError {
                throw Registry.storageError(error)
            }
            switch result {
            case .queued(let row): return .json(api.deliveryJSON(row), status: 202)
            case .notFound: throw ButtonsError.notFound("no delivery with id '\(id)'")
            case .inFlight: throw ButtonsError.conflict("in_flight", "delivery '\(id)' is being attempted right now")
            case .notReady:
                throw ButtonsError.unavailable(
                    "delivery '\(id)' cannot be sent now (the MQTT broker is not connected); it goes when the broker is back",
                    retryAfter: 5)
            }
        }
    }
}
