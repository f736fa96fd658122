import JSON

/// An action sheet: a title, options with names, and a cancel label, like an iOS action sheet.
package struct SheetDefinition: Sendable, Equatable {
    package struct Option: Sendable, Equatable {
        package var id: String
        package var label: String
        package var destructive: Bool
    }

    package var id: String
    /// What it is called, as a button's `label` is: one word inside buttond (the `{label}`
    /// placeholder, Home Assistant's device name); the API's member is `title` (SPEC §4).
    package var label: String
    package var options: [Option]
    package var cancelLabel: String = "Cancel"
    /// Where the panel places it, as a button's (SPEC §7); `group` also scopes named tokens.
    package var order: Int64?
    package var group: String?
    /// How long it stays open without a choice before the server cancels it (SPEC §7): 0 never.
    package var openTimeoutMs: Int64 = 60_000

    package static let maxOptions = 32

    package static func create(from json: JSONValue) throws(ButtonsError) -> SheetDefinition {
        var fields = try Fields(json)
        guard let id = try fields.name("id") else { throw ButtonsError.invalid("id", "id is required") }
        var sheet = SheetDefinition(id: id, label: id, options: [])
        try sheet.apply(&fields, creating: true)
        return sheet
    }

    package mutating func patch(with json: JSONValue) throws(ButtonsError) {
        var fields = try Fields(json)
        if let id = try fields.name("id"), id != self.id {
            throw ButtonsError.invalid("id", "a sheet's id cannot change")
        }
        try apply(&fields, creating: false)
    }

    private mutating func apply(_ fields: inout Fields, creating: Bool) throws(ButtonsError) {
        fields.ignore("state")
        if let title = try fields.string("title", maxLength: 128) { label = title }
        if let cancel = try fields.string("cancelLabel", maxLength: 64) { cancelLabel = cancel }
        if fields.has("order") { order = try fields.int("order", in: -1_000_000_000...1_000_000_000) } else { fields.ignore("order") }
        if fields.has("group") { group = try fields.string("group", maxLength: 64) } else { fields.ignore("group") }
        if let timeout = try fields.int("openTimeoutMs", in: 0...3_600_000) {
            guard timeout == 0 || timeout >= 1000 else {
                throw ButtonsError.invalid(
                    fields.path("openTimeoutMs"), "openTimeoutMs must be 0 (never) or between 1000 and 3600000, not \(timeout)")
            }
            openTimeoutMs = timeout
        }
        if let options = try fields.array("options") {
            guard (1...Self.maxOptions).contains(options.count) else {
                throw ButtonsError.invalid("options", "options must have between 1 and \(Self.maxOptions) entries")
            }
            var parsed: [Option] = []
            for (i, option) in options.enumerated() {
                var f = try Fields(option, path: "options[\(i)]")
                guard let id = try f.name("id") else { throw ButtonsError.invalid(f.path("id"), "\(f.path("id")) is required") }
                guard !parsed.contains(where: { $0.id == id }) else {
                    throw ButtonsError.invalid(f.path("id"), "option id '\(id)' is used twice")
                }
                let label = try f.string("label", maxLength: 64) ?? id
                let destructive = try f.bool("destructive") ?? false
                try f.finish()
                parsed.append(Option(id: id, label: label, destructive: destructive))
            }
            self.options = parsed
        } else if creating {
            throw ButtonsError.invalid("options", "options is required (at least one)")
        }
        try fields.finish()
    }

    package var json: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "title": .string(label), "cancelLabel": .string(cancelLabel), "openTimeoutMs": .int(openTimeoutMs),
            "options": .array(
                options.map { ["id": .string($0.id), "label": .string($0.label), "destructive": .bool($0.destructive)] }),
        ]
        if let order { object["order"] = .int(order) }
        if let group { object["group"] = .string(group) }
        return .object(object)
    }

    package func json(open: Bool) -> JSONValue {
        guard case .object(var object) = json else { return json }
        object["state"] = ["open": .bool(open)]
        return .object(object)
    }
}
