import Buttons
import ButtonEngine
import MicroHTTP

/// `down`, `move`, `up`, `cancel`, `press`, `state` and the batch `POST /api/v1/input`.
extension API {
    static let maxBatch = 1000

    /// `{"events": [...]}` from already-serialized events, in one buffer made with the size it
    /// needs.
    static func eventsBody(_ events: some Swift.Collection<[UInt8]>, extra: [UInt8] = []) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(events.reduce(16 + extra.count) { $0 + $1.count + 1 })
        bytes.append(contentsOf: #"{"events":["#.utf8)
        for (i, json) in events.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: json)
        }
        bytes.append(UInt8(ascii: "]"))
        bytes.append(contentsOf: extra)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    static func eventsResponse(_ events: some Swift.Collection<ControlEvent>) -> Response {
        // A lazy view: no array of the events' JSON arrays made for one pass over them.
        .json(bytes: eventsBody(events.lazy.map(\.json)))
    }

    /// Hands `command` to the sequencer; the connection waits, suspended, for its events
    /// (once they are committed) or its error.
    /// Hands `command` to the sequencer; a named token's name goes into its events as `by`.
    static func answer(_ command: Command, for grant: Grant, by sequencer: Sequencer) -> Response {
        let pending = PendingResponse()
        sequencer.submit(command, by: grant.name) { result in
            switch result {
            case .success(let events): pending.complete(eventsResponse(events))
            case .failure(let error): pending.complete(error.httpError.response)
            }
        }
        return .pending(pending)
    }

    /// The members a batch item may have; any other is 400 naming it (`[0].buton`).
    static let batchMembers: Set<String> = ["button", "type", "t", "inside", "pointer"]

    /// 400 for a member of batch item `index` that no input has.
    static func checkBatchMembers(_ item: JSONValue, index: Int) throws(ButtonsError) {
        guard case .object(let members) = item,
            let unknown = members.keys.filter({ !batchMembers.contains($0) }).sorted().first
        else { return }
        let field = "[\(index)].\(unknown)"
        throw ButtonsError.badRequest(
            "unknown field '\(field)' in input \(index); an input has button, type, t, inside and pointer", field: field)
    }

    func addInputRoutes(to router: inout APIRouter) {
        let sequencer = self.sequencer
        let api = self
        for kind in InputKind.allCases {
            router.post("/api/v1/buttons/{id}/\(kind.rawValue)", access: .press(.button(parameter: "id"))) { request, grant in
                var fields = try Fields(try request.json())
                let input = try fields.input(kind)
                try fields.finish()
                return Self.answer(.input(button: request.parameter("id"), input), for: grant, by: sequencer)
            }
        }
        router.post("/api/v1/buttons/{id}/press", access: .press(.button(parameter: "id"))) { request, grant in
            var fields = try Fields(try request.json())
            let t = try fields.time()
            let pointer = try fields.pointer()
            let hold = try fields.int("holdMs", in: 0...3_600_000) ?? 0
            try fields.finish()
            let down = Input(.down, t: t, pointer: pointer)
            return Self.answer(.press(button: request.parameter("id"), down: down, holdMs: hold), for: grant, by: sequencer)
        }
        router.post("/api/v1/buttons/{id}/reset", access: .admin(.button(parameter: "id"))) { request, grant in
            try Fields(try request.json()).finish()
            return Self.answer(.reset(button: request.parameter("id")), for: grant, by: sequencer)
        }
        router.put("/api/v1/buttons/{id}/state", access: .press(.button(parameter: "id"))) { request, grant in
            var fields = try Fields(try request.json())
            guard let face = try fields.int("face", in: 0...1) else { throw ButtonsError.invalid("face", "face (0 or 1) is required") }
            try fields.finish()
            return Self.answer(.face(button: request.parameter("id"), face: Int(face)), for: grant, by: sequencer)
        }
        router.post("/api/v1/input", access: .press(.none)) { request, grant in
            guard case .array(let items) = try request.json() else {
                throw ButtonsError.badRequest("the body must be a JSON array of inputs")
            }
            guard items.count <= Self.maxBatch else {
                throw ButtonsError.invalid("", "a batch holds at most \(Self.maxBatch) inputs")
            }
            var batch: [Command.BatchItem] = []
            batch.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                do throws(ButtonsError) {
                    try Self.checkBatchMembers(item, index: index)
                    var fields = try Fields(item, path: "[\(index)]")
                    guard let button = try fields.name("button") else {
                        throw ButtonsError.invalid(fields.path("button"), "\(fields.path("button")) is required")
                    }
                    guard let kind = try fields.choice("type", InputKind.self) else {
                        throw ButtonsError.invalid(fields.path("type"), "\(fields.path("type")) is required (down, move, up or cancel)")
                    }
                    let input = try fields.input(kind)
                    try fields.finish()
                    // A button the token does not see is missing, and the whole batch is refused.
                    guard api.sees(.button(button), grant) else { throw ButtonsError.notFound("no button named '\(button)'") }
                    batch.append(Command.BatchItem(button: button, input: input))
                } catch {
                    var error = error
                    error.details["index"] = .int(Int64(index))
                    throw error
                }
            }
            return Self.answer(.batch(batch), for: grant, by: sequencer)
        }
    }
}
