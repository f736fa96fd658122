import Buttons
import ButtonEngine
import MicroHTTP

/// Create, read, update and delete for buttons and sheets.
extension API {
    static func page(_ request: Request, defaultLimit: Int, maxLimit: Int) throws(HTTPError) -> (offset: Int, limit: Int) {
        func number(_ name: String, _ range: ClosedRange<Int>) throws(HTTPError) -> Int? {
            guard let text = request.query[name] else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw HTTPError.invalid(name, "\(name) must be an integer between \(range.lowerBound) and \(range.upperBound)")
            }
            return value
        }
        return (try number("offset", 0...Int(Int32.max)) ?? 0, try number("limit", 1...maxLimit) ?? defaultLimit)
    }

    func addRegistryRoutes(to router: inout Router) {
        let registry = self.registry
        let sequencer = self.sequencer
        let views = self.views

        router.get("/api/v1/buttons") { request in
            let (offset, limit) = try Self.page(request, defaultLimit: 1000, maxLimit: 10_000)
            let slots = registry.buttonSlots(offset: offset, limit: limit)
            let buttons = slots.map { views.button($0) }
            return .json(["buttons": .array(buttons), "total": .int(Int64(registry.buttonCount))])
        }
        router.post("/api/v1/buttons") { request in
            let definition = try ButtonDefinition.create(from: try request.json())
            let slot = try registry.createButton(definition)
            var response = Response.json(views.button(slot), status: 201)
            response.headers.append(("Location", "/api/v1/buttons/\(definition.id)"))
            return response
        }
        router.get("/api/v1/buttons/{id}") { request in
            .json(views.button(try registry.button(request.parameter("id"))))
        }
        router.patch("/api/v1/buttons/{id}") { request in
            let id = request.parameter("id")
            _ = try sequencer.update(id, with: try request.json())
            return .json(views.button(try registry.button(id)))
        }
        let handlers = self.handlers
        router.delete("/api/v1/buttons/{id}") { request in
            let id = request.parameter("id")
            try sequencer.exclusive { () throws(ButtonsError) in try registry.deleteButton(id) }
            handlers.removeOwner(.button(request.parameter("id")))
            return .noContent
        }

        router.get("/api/v1/sheets") { _ in
            let sheets = registry.sheetSlots.map { views.sheet($0) }
            return .json(["sheets": .array(sheets)])
        }
        router.post("/api/v1/sheets") { request in
            let definition = try SheetDefinition.create(from: try request.json())
            _ = try registry.createSheet(definition)
            var response = Response.json(definition.json(open: false), status: 201)
            response.headers.append(("Location", "/api/v1/sheets/\(definition.id)"))
            return response
        }
        router.get("/api/v1/sheets/{id}") { request in
            .json(views.sheet(try registry.sheet(request.parameter("id"))))
        }
        router.patch("/api/v1/sheets/{id}") { request in
            let id = request.parameter("id")
            _ = try sequencer.updateSheet(id, with: try request.json())
            return .json(views.sheet(try registry.sheet(id)))
        }
        router.delete("/api/v1/sheets/{id}") { request in
            let id = request.parameter("id")
            try sequencer.exclusive { () throws(ButtonsError) in try registry.deleteSheet(id) }
            handlers.removeOwner(.sheet(request.parameter("id")))
            return .noContent
        }
        router.post("/api/v1/sheets/{id}/open") { request in
            var fields = try Fields(try request.json())
            let t = try fields.int("t", in: 0...Self.maxT)
            try fields.finish()
            return Self.answer(.sheet(request.parameter("id"), .open, t: t), by: sequencer)
        }
        router.post("/api/v1/sheets/{id}/cancel") { request in
            var fields = try Fields(try request.json())
            let t = try fields.int("t", in: 0...Self.maxT)
            try fields.finish()
            return Self.answer(.sheet(request.parameter("id"), .cancel, t: t), by: sequencer)
        }
        router.post("/api/v1/sheets/{id}/choose") { request in
            var fields = try Fields(try request.json())
            let t = try fields.int("t", in: 0...Self.maxT)
            guard let option = fields.raw("option") else {
                throw HTTPError.invalid("option", "option (an option id or index) is required")
            }
            try fields.finish()
            return Self.answer(.sheet(request.parameter("id"), .choose(option), t: t), by: sequencer)
        }
    }
}
