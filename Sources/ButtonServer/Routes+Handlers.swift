import Buttons
import ButtonEngine
import ButtonStore
import Delivery
import MicroHTTP

/// Handlers on buttons and sheets, and the delivery log.
extension API {
    static let deliveryStatuses: Set<String> = ["pending", "in_flight", "ok", "failed", "expired"]

    static func deliveryJSON(_ row: OutboxRow) -> JSONValue {
        [
            "id": .string(row.id), "handler": .string(row.handler), "eventSeq": .int(row.eventSeq), "status": .string(row.status),
            "attempts": .int(Int64(row.attempts)), "nextAttemptAt": .int(row.nextAttemptAt), "createdAt": .int(row.createdAt),
        ]
    }

    static func attemptJSON(_ attempt: StoredAttempt) -> JSONValue {
        var object: [String: JSONValue] = [
            "number": .int(Int64(attempt.number)), "startedAt": .int(attempt.startedAt), "durationMs": .int(attempt.durationMs),
            "outcome": .string(attempt.outcome), "output": .string(attempt.output),
        ]
        if let code = attempt.statusCode { object["statusCode"] = .int(Int64(code)) }
        if let code = attempt.exitCode { object["exitCode"] = .int(Int64(code)) }
        return .object(object)
    }

    func context(for owner: HandlerDefinition.Owner) throws(ButtonsError) -> HandlerDefinition.Context {
        switch owner {
        case .button(let id):
            _ = try registry.button(id)
            return HandlerDefinition.Context(scriptsDir: options.scriptsDir)
        case .sheet(let id):
            let slot = try registry.sheet(id)
            return HandlerDefinition.Context(scriptsDir: options.scriptsDir, sheetOptions: slot.locked { slot.definition.options.map(\.id) })
        }
    }

    func delivery(_ id: String) throws(ButtonsError) -> OutboxRow {
        let row: OutboxRow?
        do { row = try registry.store.outbox(id: id) } catch { throw Registry.storageError(error) }
        guard let row else { throw ButtonsError.notFound("no delivery with id '\(id)'") }
        return row
    }

    func addHandlerRoutes(to router: inout Router) {
        let api = self
        let handlers = self.handlers
        let dispatcher = self.dispatcher
        let store = registry.store
        let clock = sequencer.clock
        for (kind, makeOwner) in [("buttons", HandlerDefinition.Owner.button), ("sheets", HandlerDefinition.Owner.sheet)] {
            router.get("/api/v1/\(kind)/{id}/handlers") { request in
                let owner = makeOwner(request.parameter("id"))
                _ = try api.context(for: owner)
                let redact = request.access == "press"
                return .json(["handlers": .array(handlers.list(owner: owner).map { $0.json(redactingHeaders: redact) })])
            }
            router.post("/api/v1/\(kind)/{id}/handlers") { request in
                let owner = makeOwner(request.parameter("id"))
                let definition = try HandlerDefinition.create(from: try request.json(), owner: owner, context: try api.context(for: owner))
                let secret = try handlers.add(definition)
                guard case .object(var object) = definition.json else { return .json(definition.json, status: 201) }
                if let secret { object["secret"] = .string(secret) }
                var response = Response.json(.object(object), status: 201)
                response.headers.append(("Location", "/api/v1/handlers/\(definition.id)"))
                return response
            }
        }
        router.get("/api/v1/handlers/{hid}") { request in
            .json(try handlers.get(request.parameter("hid")).json(redactingHeaders: request.access == "press"))
        }
        router.patch("/api/v1/handlers/{hid}") { request in
            let body = try request.json()
            let current = try handlers.get(request.parameter("hid"))
            let context = try api.context(for: current.owner)
            let updated = try handlers.update(current.id) { (definition: inout HandlerDefinition) throws(ButtonsError) in
                try definition.patch(with: body, context: context)
            }
            if updated.enabled { dispatcher.wake() }
            return .json(updated.json)
        }
        router.delete("/api/v1/handlers/{hid}") { request in
            try handlers.delete(request.parameter("hid"))
            return .noContent
        }
        router.post("/api/v1/handlers/{hid}/rotate-secret") { request in
            .json(["id": .string(request.parameter("hid")), "secret": .string(try handlers.rotateSecret(request.parameter("hid")))])
        }
        router.post("/api/v1/handlers/{hid}/test") { request in
            let definition = try handlers.get(request.parameter("hid"))
            let now = clock.now()
            // A synthetic event, seq 0, with an id that says it is a test.
            let source: ControlEvent.Source
            switch definition.owner {
            case .button(let id): source = .button(id)
            case .sheet(let id): source = .sheet(id)
            }
            let event = ControlEvent(
                seq: 0, idPrefix: "evt_test_\(String(now, radix: 36))_", gesture: GestureEvent(definition.on.first ?? .tap, t: now),
                source: source)
            let row = OutboxRow(
                id: HandlerRegistry.newDeliveryID(), handler: definition.id, eventSeq: 0, body: event.json, nextAttemptAt: now, createdAt: now)
            do { try store.enqueue([row]) } catch { throw Registry.storageError(error) }
            dispatcher.added([row])
            dispatcher.wake()
            return .json(Self.deliveryJSON(row), status: 202)
        }

        router.get("/api/v1/deliveries") { request in
            let (_, limit) = try API.page(request, defaultLimit: 100, maxLimit: 1000)
            let status = request.query["status"]
            if let status, !Self.deliveryStatuses.contains(status) {
                throw ButtonsError.invalid("status", "status must be one of \(Self.deliveryStatuses.sorted().joined(separator: ", "))")
            }
            let rows: [OutboxRow]
            do { rows = try store.deliveries(handler: request.query["handler"], status: status, limit: limit) } catch {
                throw Registry.storageError(error)
            }
            return .json(["deliveries": .array(rows.map(Self.deliveryJSON))])
        }
        router.get("/api/v1/deliveries/{did}") { request in
            let row = try api.delivery(request.parameter("did"))
            let attempts: [StoredAttempt]
            do { attempts = try store.attempts(delivery: row.id) } catch { throw Registry.storageError(error) }
            guard case .object(var object) = Self.deliveryJSON(row) else { throw ButtonsError.notFound("no delivery") }
            object["attempts"] = .array(attempts.map(Self.attemptJSON))
            object["event"] = (try? JSONParser.parse(row.body)) ?? .null
            return .json(.object(object))
        }
        router.post("/api/v1/deliveries/{did}/redeliver") { request in
            var row = try api.delivery(request.parameter("did"))
            guard row.status != "in_flight" else {
                throw ButtonsError.conflict("in_flight", "delivery '\(row.id)' is being attempted right now")
            }
            let wasFinal = row.status != "pending"
            row.status = "pending"
            row.nextAttemptAt = clock.now()
            do { try store.updateOutbox(id: row.id, status: row.status, attempts: row.attempts, nextAttemptAt: row.nextAttemptAt) } catch {
                throw Registry.storageError(error)
            }
            dispatcher.added([row], newlyQueued: wasFinal)
            dispatcher.wake()
            return .json(Self.deliveryJSON(row), status: 202)
        }
    }
}
