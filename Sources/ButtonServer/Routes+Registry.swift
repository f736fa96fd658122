import Buttons
import ButtonEngine
import MicroHTTP

/// Create, read, update and delete for buttons and sheets.
extension API {
    static func page(_ request: Request, defaultLimit: Int, maxLimit: Int) throws(ButtonsError) -> (offset: Int, limit: Int) {
        func number(_ name: String, _ range: ClosedRange<Int>) throws(ButtonsError) -> Int? {
            guard let text = request.query[name] else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw ButtonsError.invalid(name, "\(name) must be an integer between \(range.lowerBound) and \(range.upperBound)")
            }
            return value
        }
        return (try number("offset", 0...Int(Int32.max)) ?? 0, try number("limit", 1...maxLimit) ?? defaultLimit)
    }

    /// A `?name=true|false` flag (absent: false); anything else is 422 naming it.
    static func flag(_ request: Request, _ name: String) throws(ButtonsError) -> Bool {
        switch request.query[name] {
        case nil, "false", "0": return false
        case "true", "1", "": return true
        default: throw ButtonsError.invalid(name, "\(name) must be true or false")
        }
    }

    /// The routes one collection (buttons, sheets) has by id: create, read, update, delete.
    struct Collection<Slot: Sendable>: Sendable {
        /// `/api/v1/buttons`
        var path: String
        var create: @Sendable (JSONValue) throws -> Slot
        var find: @Sendable (String) throws -> Slot
        var update: @Sendable (String, JSONValue) throws -> Void
        /// The group a create or change puts it in (a scoped admin's must be one of its own).
        var group: @Sendable (JSONValue) -> String?? = { json in
            guard case .object(let object) = json, let value = object["group"] else { return nil }
            if case .string(let group) = value { return .some(group) }
            return .some(nil)
        }
        var delete: @Sendable (String) throws -> Void
        var view: @Sendable (Slot) -> JSONValue
    }

    static func addRoutes<Slot: RegistrySlot>(
        for collection: Collection<Slot>, object: @escaping @Sendable (String) -> Access.Object, to router: inout APIRouter
    ) {
        let byID = object("id")
        router.post(collection.path, access: .admin(.none)) { request, grant in
            let json = try request.json()
            if grant.isScoped { try checkPlacement(collection.group(json) ?? nil, grant) }
            let slot = try collection.create(json)
            var response = Response.json(collection.view(slot), status: 201)
            response.headers.append(("Location", "\(collection.path)/\(slot.id)"))
            return response
        }
        router.get(collection.path + "/{id}", access: .read(byID)) { request, _ in
            .json(collection.view(try collection.find(request.parameter("id"))))
        }
        router.patch(collection.path + "/{id}", access: .admin(byID)) { request, grant in
            let id = request.parameter("id")
            let json = try request.json()
            if let group = collection.group(json) { try checkPlacement(group, grant) }
            try collection.update(id, json)
            return .json(collection.view(try collection.find(id)))
        }
        router.delete(collection.path + "/{id}", access: .admin(byID)) { request, _ in
            try collection.delete(request.parameter("id"))
            return .noContent
        }
    }

    func addRegistryRoutes(to router: inout APIRouter) {
        let registry = self.registry
        let sequencer = self.sequencer
        let views = self.views
        let handlers = self.handlers

        let api = self
        router.get("/api/v1/buttons", query: ["offset", "limit"], access: .read()) { request, grant in
            let (offset, limit) = try Self.page(request, defaultLimit: 1000, maxLimit: 10_000)
            guard grant.isScoped else {
                let slots = registry.buttonSlots(offset: offset, limit: limit)
                return .json(["buttons": .array(slots.map { views.button($0) }), "total": .int(Int64(registry.buttonCount))])
            }
            let visible = api.visibleButtons(grant)
            let page = visible.dropFirst(offset).prefix(limit)
            return .json(["buttons": .array(page.map { views.button($0) }), "total": .int(Int64(visible.count))])
        }
        Self.addRoutes(
            for: Collection(
                path: "/api/v1/buttons",
                create: { json in try registry.createButton(try ButtonDefinition.create(from: json, icons: registry.icons)) },
                find: { id in try registry.button(id) },
                update: { id, json in _ = try sequencer.update(id, with: json) },
                delete: { id in
                    try sequencer.exclusive { () throws(ButtonsError) in try registry.deleteButton(id) }
                    handlers.removeOwner(.button(id))
                },
                view: { views.button($0) }),
            object: { .button(parameter: $0) }, to: &router)

        router.get("/api/v1/sheets", access: .read()) { _, grant in
            let sheets = api.visibleSheets(grant).map { views.sheet($0) }
            return .json(["sheets": .array(sheets)])
        }
        Self.addRoutes(
            for: Collection(
                path: "/api/v1/sheets",
                create: { json in try registry.createSheet(try SheetDefinition.create(from: json)) },
                find: { id in try registry.sheet(id) },
                update: { id, json in _ = try sequencer.updateSheet(id, with: json) },
                delete: { id in
                    try sequencer.exclusive { () throws(ButtonsError) in try registry.deleteSheet(id) }
                    handlers.removeOwner(.sheet(id))
                },
                view: { views.sheet($0) }),
            object: { .sheet(parameter: $0) }, to: &router)

        for (name, action) in [("open", Command.SheetAction.open), ("cancel", .cancel)] {
            router.post("/api/v1/sheets/{id}/\(name)", access: .press(.sheet(parameter: "id"))) { request, grant in
                var fields = try Fields(try request.json())
                let t = try fields.time()
                try fields.finish()
                return Self.answer(.sheet(request.parameter("id"), action, t: t), for: grant, by: sequencer)
            }
        }
        router.post("/api/v1/sheets/{id}/choose", access: .press(.sheet(parameter: "id"))) { request, grant in
            var fields = try Fields(try request.json())
            let t = try fields.time()
            guard let option = fields.raw("option") else {
                throw ButtonsError.invalid("option", "option (an option id or index) is required")
            }
            try fields.finish()
            return Self.answer(.sheet(request.parameter("id"), .choose(option), t: t), for: grant, by: sequencer)
        }
    }
}
