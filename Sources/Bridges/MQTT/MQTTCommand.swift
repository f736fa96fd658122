import ButtonEngine
import Buttons
import JSON

/// A command published to `<base>/button/<id>/set` or `<base>/sheet/<id>/set` (SPEC §9), as
/// the sequencer command the HTTP API would make of it: the same validation, the same order.
enum MQTTCommand {
    /// What a command asks for: input (through the sequencer's batches) or a change of a
    /// button's look (`status`, `color`, `size`: a PATCH of its definition).
    enum Action {
        case command(Command)
        case look(button: String, JSONValue)
        /// `{"enabled": true|false}`: Home Assistant's "Enabled" switch (a PATCH of `enabled`).
        case enabled(button: String, Bool)
    }

    /// The HTTP API's body limit.
    static let maxPayload = 64 * 1024

    static func parse(topic: String, payload: [UInt8], base: String, registry: Registry) throws(ButtonsError) -> Action {
        let levels = topic.dropFirst(base.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        guard topic.hasPrefix(base + "/"), levels.count == 3, levels[2] == "set", !levels[1].isEmpty else {
            throw ButtonsError.invalid("topic", "commands go to \(base)/button/<id>/set or \(base)/sheet/<id>/set")
        }
        let id = String(levels[1])
        guard payload.count <= maxPayload else {
            throw ButtonsError.invalid("payload", "a command is at most \(maxPayload / 1024) KiB, as an HTTP body is")
        }
        var text = Substring(String(decoding: payload, as: UTF8.self))
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        let json: JSONValue?
        if text.hasPrefix("{") {
            do { json = try JSONParser.parse(Array(text.utf8)) } catch { throw ButtonsError.badRequest(error.description) }
        } else {
            json = nil
        }
        switch levels[0] {
        case "button": return try button(id, word: json == nil ? String(text) : nil, json: json, registry: registry)
        case "sheet": return .command(try sheet(id, word: json == nil ? String(text) : nil, json: json, registry: registry))
        default: throw ButtonsError.invalid("topic", "commands go to \(base)/button/<id>/set or \(base)/sheet/<id>/set")
        }
    }

    private static func button(_ id: String, word: String?, json: JSONValue?, registry: Registry) throws(ButtonsError) -> Action {
        _ = try registry.button(id)
        if let word {
            switch word {
            case "press": return .command(.press(button: id, down: Input(.down), holdMs: 0))
            case "down": return .command(.input(button: id, Input(.down)))
            case "up": return .command(.input(button: id, Input(.up)))
            case "cancel": return .command(.input(button: id, Input(.cancel)))
            default: throw ButtonsError.invalid("payload", "a button command is press, down, up, cancel or a JSON object")
            }
        }
        let json = json ?? .object([:])
        var fields = try Fields(json)
        if let face = try fields.int("face", in: 0...1) {
            try fields.finish()
            return .command(.face(button: id, face: Int(face)))
        }
        if let enabled = try fields.bool("enabled") {
            try fields.finish()
            return .enabled(button: id, enabled)
        }
        if fields.keys.contains(where: ["status", "color", "size"].contains) {
            return .look(button: id, json)  // checked as a PATCH: only look fields pass
        }
        guard let kind = try fields.choice("type", InputKind.self) else {
            throw ButtonsError.invalid("type", "a JSON command has type (down, move, up, cancel), face, enabled, or status/color/size")
        }
        let input = try fields.input(kind)
        try fields.finish()
        return .command(.input(button: id, input))
    }

    private static func sheet(_ id: String, word: String?, json: JSONValue?, registry: Registry) throws(ButtonsError) -> Command {
        let slot = try registry.sheet(id)
        if let word {
            switch word {
            case "open": return .sheet(id, .open, t: nil)
            case "cancel": return .sheet(id, .cancel, t: nil)
            default: throw ButtonsError.invalid("payload", "a sheet command is open, cancel or {\"option\": …}")
            }
        }
        var fields = try Fields(json ?? .object([:]))
        guard let option = fields.raw("option") else {
            throw ButtonsError.invalid("option", "a JSON sheet command has option (an option's id, label or index)")
        }
        try fields.finish()
        // Home Assistant's select sends the label; the API takes the id or the index.
        guard case .string(let text) = option else { return .sheet(id, .choose(option), t: nil) }
        let options = slot.locked { slot.definition.options }
        let chosen = options.first { $0.id == text } ?? options.first { $0.label == text }
        return .sheet(id, .choose(.string(chosen?.id ?? text)), t: nil)
    }
}
