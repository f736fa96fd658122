import Handlers
import ButtonEngine
import Buttons
import ButtonStore
import Delivery
import FoundationEssentials
import JSON
import Logging

/// The whole registry as one JSON document (`GET/PUT /api/v1/config`, `--config FILE`):
/// buttons, sheets and handlers, never secrets.
package struct RegistryConfig {
    var buttons: [ButtonDefinition] = []
    var sheets: [SheetDefinition] = []
    var handlers: [Handler] = []
    /// Which handlers the document gave an id (the others are matched or made new).
    var handlerHasID: [Bool] = []

    /// The registry as a document, each handler as `render` shows it (the press token sees
    /// handlers as it sees them everywhere else), of what `sees` lets the reader see.
    package static func export(
        registry: Registry, handlers: HandlerRegistry, render: (Handler) -> JSONValue, seeing sees: (Source) -> Bool = { _ in true }
    ) -> JSONValue {
        [
            "buttons": .array(
                registry.buttonSlots().filter { sees(.button($0.id)) }.map { slot in slot.locked { slot.definition.json } }),
            "sheets": .array(registry.sheetSlots.filter { sees(.sheet($0.id)) }.map { slot in slot.locked { slot.definition.json } }),
            "handlers": .array(handlers.all.filter { sees($0.owner) }.map(render)),
        ]
    }

    /// The document read and every item validated: a button's icon against `icons` (the
    /// registry's set), a handler exactly as its own route judges it (`Handler.create` with
    /// `context`: the scripts directory and the destination rules).
    package static func parse(
        _ json: JSONValue, context: Handler.Context, maxButtons: Int = .max, icons: Set<String>
    ) throws(ButtonsError) -> RegistryConfig {
        guard case .object = json else {
            throw ButtonsError.invalid("$", "a config is a JSON object with buttons, sheets and handlers")
        }
        var fields = try Fields(json)
        var config = RegistryConfig()
        let (listed, sheets, handlers) = (try fields.array("buttons"), try fields.array("sheets"), try fields.array("handlers"))
        // An unknown member is named before anything else: `buttonz` is a typo, not a missing list.
        try fields.finish()
        // A config always names its buttons: an empty body must not wipe the registry.
        guard let buttons = listed else {
            throw ButtonsError.invalid("buttons", "buttons is required (an empty list removes every button)")
        }
        guard buttons.count <= maxButtons else {
            throw ButtonsError.invalid("buttons", "the registry holds at most \(maxButtons) buttons")
        }
        for (i, item) in buttons.enumerated() {
            do throws(ButtonsError) {
                config.buttons.append(try ButtonDefinition.create(from: item, icons: icons))
            } catch {
                throw Self.prefixed(error, "buttons[\(i)]")
            }
        }
        for (i, item) in (sheets ?? []).enumerated() {
            do throws(ButtonsError) {
                config.sheets.append(try SheetDefinition.create(from: item))
            } catch {
                throw Self.prefixed(error, "sheets[\(i)]")
            }
        }
        try Self.unique(config.buttons.map(\.id), kind: "buttons")
        try Self.unique(config.sheets.map(\.id), kind: "sheets")
        let buttonIDs = Set(config.buttons.map(\.id))
        let sheetOptions = Dictionary(config.sheets.map { ($0.id, $0.options.map(\.id)) }, uniquingKeysWith: { a, _ in a })
        for (i, item) in (handlers ?? []).enumerated() {
            do throws(ButtonsError) {
                config.handlers.append(
                    try handler(item, context: context, buttons: buttonIDs, sheetOptions: sheetOptions))
            } catch {
                throw Self.prefixed(error, "handlers[\(i)]")
            }
            if case .string? = item["id"] { config.handlerHasID.append(true) } else { config.handlerHasID.append(false) }
        }
        try Self.unique(config.handlers.indices.filter { config.handlerHasID[$0] }.map { config.handlers[$0].id }, kind: "handlers")
        let perOwner = Dictionary(grouping: config.handlers, by: \.owner)
        if let (owner, list) = perOwner.first(where: { $0.value.count > HandlerRegistry.maxPerOwner }) {
            throw ButtonsError.invalid(
                "handlers", "\(owner.kind) '\(owner.id)' has \(list.count) handlers; at most \(HandlerRegistry.maxPerOwner)")
        }
        return config
    }

    /// One handler of the config, whose owner must be in the same config.
    private static func handler(
        _ item: JSONValue, context: Handler.Context, buttons: Set<String>, sheetOptions: [String: [String]]
    ) throws(ButtonsError) -> Handler {
        var owner: Source
        var context = context
        context.envelope = true
        if case .string(let id)? = item["button"] {
            guard buttons.contains(id) else { throw ButtonsError.invalid("button", "no button '\(id)' in this config") }
            owner = .button(id)
        } else if case .string(let id)? = item["sheet"] {
            guard let options = sheetOptions[id] else { throw ButtonsError.invalid("sheet", "no sheet '\(id)' in this config") }
            owner = .sheet(id)
            context.sheetOptions = options
        } else {
            throw ButtonsError.invalid("button", "a handler names its button or sheet")
        }
        var handler = try Handler.create(from: item, owner: owner, context: context)
        if case .string(let id)? = item["id"] {
            guard id.hasPrefix("hdl_"), Names.isValid(String(id.dropFirst(4))) else {
                throw ButtonsError.invalid("id", "a handler id looks like hdl_abc123")
            }
            handler.id = id
        }
        return handler
    }

    /// 422 naming the second item of a kind that repeats an id (`buttons[3].id`).
    private static func unique(_ ids: [String], kind: String) throws(ButtonsError) {
        var seen: [String: Int] = [:]
        for (index, id) in ids.enumerated() {
            if let first = seen[id] {
                throw ButtonsError.invalid("\(kind)[\(index)].id", "\(kind)[\(index)]: the id '\(id)' is already used by \(kind)[\(first)]")
            }
            seen[id] = index
        }
    }

    private static func prefixed(_ error: ButtonsError, _ prefix: String) -> ButtonsError {
        var error = error
        if case .string(let field)? = error.details["field"] { error.details["field"] = .string("\(prefix).\(field)") }
        error.message = "\(prefix): \(error.message)"
        return error
    }

    /// Replaces the registry with this config. Webhook handlers that are new get new secrets,
    /// returned here once; handlers that keep their id keep their secret.
    func replace(registry: Registry, handlers: HandlerRegistry) throws(ButtonsError) -> [String: String] {
        var newSecrets: [String: String] = [:]
        var stored: [StoredHandler] = []
        for (position, handler) in self.handlers.enumerated() {
            var secret = handlers.secret(of: handler.id)
            if secret == nil, handler.action.isSigned {
                secret = Signature.newSecret()
                newSecrets[handler.id] = secret
            }
            stored.append(StoredHandler(handler, position: position, secret: secret))
        }
        do {
            try registry.store.replaceRegistry(
                buttons: buttons.map { ($0.id, String(decoding: JSONWriter.encode($0.json), as: UTF8.self)) },
                sheets: sheets.map { ($0.id, String(decoding: JSONWriter.encode($0.json), as: UTF8.self)) },
                handlers: stored)
        } catch {
            throw Registry.storageError(error)
        }
        registry.replaceAll(buttons: buttons, sheets: sheets)
        handlers.replaceAll(stored)
        return newSecrets
    }
}

extension RegistryConfig {
    /// Plans this document against the registry and, unless `dryRun`, makes the registry the
    /// document in one transaction, between batches; logs the plan's counts either way.
    /// Returns the plan and the secrets of the webhooks it made.
    package func apply(
        registry: Registry, handlers: HandlerRegistry, sequencer: Sequencer, dryRun: Bool, logger: Logger, source: String,
        view: HandlerView
    ) throws(ButtonsError) -> (ConfigPlan, [String: String]) {
        let document = self
        let result = try sequencer.exclusive { () throws(ButtonsError) -> (ConfigPlan, [String: String]) in
            var config = document
            config.matchHandlers(to: handlers.all, given: config.handlerHasID, view: view)
            let plan = config.plan(registry: registry, handlers: handlers, view: view)
            if dryRun || plan.isEmpty { return (plan, [:]) }
            return (plan, try config.replace(registry: registry, handlers: handlers))
        }
        logger.log(.info, dryRun ? "config planned" : "config applied") { line in
            line.field("source", source)
            for (key, value) in result.0.counts { line.field(named: key, value) }
        }
        return result
    }
}

extension RegistryConfig {
    /// `--config FILE`, at start and on SIGHUP: read, validated and applied exactly as
    /// `PUT /api/v1/config` applies a document (the registry becomes the file), its plan logged.
    /// Nil when applied; else why not, in the words a start or a reload reports (a file that
    /// cannot be read or is invalid changes nothing).
    package static func apply(
        file: String, context: Handler.Context, registry: Registry, handlers: HandlerRegistry, sequencer: Sequencer,
        logger: Logger, view: HandlerView
    ) -> String? {
        do {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let config = try parse(
                try JSONParser.parse(Array(text.utf8)), context: context, maxButtons: registry.maxButtons, icons: registry.icons)
            _ = try config.apply(
                registry: registry, handlers: handlers, sequencer: sequencer, dryRun: false, logger: logger, source: file, view: view)
            return nil
        } catch let error as ButtonsError {
            // The words a PUT /api/v1/config would answer with, naming the field.
            let field = error.details["field"].flatMap { if case .string(let f) = $0 { " (\(f))" } else { nil } } ?? ""
            return "invalid --config \(file): \(error.message)\(field)"
        } catch let error as JSONParser.Failure {
            return "invalid --config \(file): not JSON: \(error.description)"
        } catch {
            return "cannot read --config \(file): \(error)"
        }
    }
}

/// How a config document and its plan show a handler: as the API renders it (`Viewer`, at the
/// HTTP edge), given in by whoever applies the document.
package struct HandlerView: Sendable {
    /// The handler as the admin reads it (never its secret): what the plan compares.
    var json: @Sendable (Handler) -> JSONValue
    /// Where its deliveries go (`POST http://host/path`, `script name`): with the owner, the
    /// events and the option, what makes a handler given without an id the same as one stored.
    var target: @Sendable (Handler) -> String

    package init(json: @escaping @Sendable (Handler) -> JSONValue, target: @escaping @Sendable (Handler) -> String) {
        self.json = json
        self.target = target
    }
}
