import JSON
import ButtonStore
import Buttons
import ButtonEngine
import Platform
import Delivery
import Dispatch

/// A handler as the API reads, checks and shows it.
extension Handler {
    package static let buttonEvents: Set<EventType> = Set(EventType.allCases).subtracting([.sheetOpen, .select, .sheetCancel])
    package static let sheetEvents: Set<EventType> = [.sheetOpen, .select, .sheetCancel]
    package static let forbiddenHeaders: Set<String> = ["host", "content-length", "transfer-encoding", "connection"]

    /// What a request may change, and the server facts validation needs.
    package struct Context {
        package var scriptsDir: String?
        /// Where webhooks may go (literal addresses are checked at registration).
        package var destinations = DestinationRules()
        package var sheetOptions: [String]?
        /// The body may carry `id`, `button` and `sheet` (stored form, config import).
        package var envelope = false

        package init(
            scriptsDir: String?, destinations: DestinationRules = DestinationRules(), sheetOptions: [String]? = nil,
            envelope: Bool = false
        ) {
            self.scriptsDir = scriptsDir
            self.destinations = destinations
            self.sheetOptions = sheetOptions
            self.envelope = envelope
        }
    }

    package static func create(from json: JSONValue, owner: Source, context: Context) throws(ButtonsError) -> Handler {
        var fields = try Fields(json)
        if context.envelope {
            fields.ignore("id")
            fields.ignore("button")
            fields.ignore("sheet")
        }
        let webhook = try fields.object("webhook")
        let script = try fields.object("script")
        let osc = try fields.object("osc")
        let action: Action
        var maxAttempts: Int64
        var expire: Int64?
        switch (webhook, script, osc) {
        case (var w?, nil, nil):
            guard let url = try w.string("url", maxLength: 100_000) else { throw ButtonsError.invalid("webhook.url", "webhook.url is required") }
            var hook = WebhookAction(url: url)
            try Self.validate(url: url, destinations: context.destinations)
            hook.method = try Self.method(&w) ?? "POST"
            hook.body = try Self.bodyTemplate(&w)
            hook.headers = try Self.headers(&w)
            hook.timeoutMs = try w.int("timeoutMs", in: 1000...30_000) ?? 10_000
            maxAttempts = try w.int("maxAttempts", in: 1...20) ?? 7
            expire = try w.int("expireAfterMs", in: 1000...604_800_000)
            try w.finish()
            try Self.check(hook)
            action = .webhook(hook)
        case (nil, var s?, nil):
            guard let name = try s.string("name", maxLength: 128) else { throw ButtonsError.invalid("script.name", "script.name is required") }
            guard let dir = context.scriptsDir else {
                throw ButtonsError.invalid(
                    "script", "script handlers are disabled: start buttond with --scripts-dir DIR (or BUTTOND_SCRIPTS_DIR) to allow scripts from DIR")
            }
            try Self.validate(script: name, in: dir)
            var run = ScriptAction(name: name)
            if let args = try s.array("args") { run.args = try Self.arguments(args) }
            run.timeoutMs = try s.int("timeoutMs", in: 1000...300_000) ?? 10_000
            maxAttempts = try s.int("maxAttempts", in: 1...20) ?? 1
            expire = try s.int("expireAfterMs", in: 1000...604_800_000)
            try s.finish()
            action = .script(run)
        case (nil, nil, var o?):
            (action, maxAttempts, expire) = try Self.oscAction(&o, context: context)
        case (nil, nil, nil):
            throw ButtonsError.invalid("webhook", "a handler needs a webhook, a script or osc")
        default:
            throw ButtonsError.invalid(osc == nil ? "script" : "osc", "a handler has one of webhook, script or osc, not several")
        }
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var definition = Handler(
            id: "hdl_" + String((0..<16).map { _ in alphabet.randomElement()! }), owner: owner, on: [], action: action,
            maxAttempts: maxAttempts, expireAfterMs: expire)
        try definition.applyCommon(&fields, context: context, creating: true)
        try fields.finish()
        return definition
    }

    /// PATCH: `on`, `option`, `enabled`, and members of `webhook` or `script`.
    package mutating func patch(with json: JSONValue, context: Context) throws(ButtonsError) {
        var fields = try Fields(json)
        // What GET shows may be sent back; changing it is refused (a new handler is made instead).
        let ownerField: (String, String) =
            switch owner {
            case .button(let button): ("button", button)
            case .sheet(let sheet): ("sheet", sheet)
            }
        for (key, now) in [("id", id), ownerField] {
            if let value = try fields.string(key, maxLength: 256), value != now {
                throw ButtonsError.invalid(key, "a handler's \(key) cannot change (it is '\(now)'); create a new handler instead")
            }
        }
        fields.ignore(ownerField.0 == "button" ? "sheet" : "button")
        if var w = try fields.object("webhook") {
            guard case .webhook(var hook) = action else { throw ButtonsError.invalid("webhook", "this handler is a \(kind); create a new handler for a webhook") }
            if let url = try w.string("url", maxLength: 100_000) {
                try Self.validate(url: url, destinations: context.destinations)
                hook.url = url
            }
            if let method = try Self.method(&w) { hook.method = method }
            if w.keys.contains("body") { hook.body = try Self.bodyTemplate(&w) }  // null removes it
            if w.has("headers") { hook.headers = try Self.headers(&w) } else { w.ignore("headers") }
            if let v = try w.int("timeoutMs", in: 1000...30_000) { hook.timeoutMs = v }
            if let v = try w.int("maxAttempts", in: 1...20) { maxAttempts = v }
            if w.keys.contains("expireAfterMs") { expireAfterMs = try w.int("expireAfterMs", in: 1000...604_800_000) }  // null removes it
            w.ignore("expireAfterMs")
            try w.finish()
            try Self.check(hook)
            action = .webhook(hook)
        }
        if var s = try fields.object("script") {
            guard case .script(var run) = action else { throw ButtonsError.invalid("script", "this handler is a \(kind); create a new handler for a script") }
            if let name = try s.string("name", maxLength: 128) {
                guard let dir = context.scriptsDir else {
                    throw ButtonsError.invalid("script", "script handlers are disabled: start buttond with --scripts-dir DIR (or BUTTOND_SCRIPTS_DIR)")
                }
                try Self.validate(script: name, in: dir)
                run.name = name
            }
            if let args = try s.array("args") { run.args = try Self.arguments(args) }
            if let v = try s.int("timeoutMs", in: 1000...300_000) { run.timeoutMs = v }
            if let v = try s.int("maxAttempts", in: 1...20) { maxAttempts = v }
            if s.keys.contains("expireAfterMs") { expireAfterMs = try s.int("expireAfterMs", in: 1000...604_800_000) }  // null removes it
            s.ignore("expireAfterMs")
            try s.finish()
            action = .script(run)
        }
        if var o = try fields.object("osc") { try patchOSC(&o, context: context) }
        try applyCommon(&fields, context: context, creating: false)
        try fields.finish()
    }

    private mutating func applyCommon(_ fields: inout Fields, context: Context, creating: Bool) throws(ButtonsError) {
        if let list = try fields.array("on") {
            let allowed: Set<EventType>
            if case .button = owner { allowed = Self.buttonEvents } else { allowed = Self.sheetEvents }
            guard !list.isEmpty else { throw ButtonsError.invalid("on", "on must list at least one event type") }
            guard list.count <= EventType.allCases.count else {
                throw ButtonsError.invalid("on", "on lists \(list.count) entries; there are \(EventType.allCases.count) event types")
            }
            var types: [EventType] = []
            for (i, item) in list.enumerated() {
                guard case .string(let name) = item else { throw ButtonsError.badRequest("on[\(i)] must be a string", field: "on[\(i)]") }
                guard let type = EventType(rawValue: name), allowed.contains(type) else {
                    let names = allowed.map(\.rawValue).sorted().joined(separator: ", ")
                    throw ButtonsError.invalid("on[\(i)]", "on[\(i)] '\(name)' is not an event of this \(owner.kind); use one of \(names)")
                }
                if !types.contains(type) { types.append(type) }
            }
            on = types
        } else if creating {
            throw ButtonsError.invalid("on", "on (a list of event types) is required")
        }
        if fields.keys.contains("option") {  // null removes it
            let option = try fields.name("option")
            if option != nil, case .button = owner { throw ButtonsError.invalid("option", "option is only for sheet handlers") }
            if let option, let options = context.sheetOptions, !options.contains(option) {
                throw ButtonsError.invalid("option", "the sheet has no option '\(option)'")
            }
            self.option = option
        }
        fields.ignore("option")
        if let enabled = try fields.bool("enabled") { self.enabled = enabled }
        if let ordered = try fields.bool("ordered") { self.ordered = ordered }
    }

    /// `webhook.method`, upper-cased; nil when absent.
    package static func method(_ fields: inout Fields) throws(ButtonsError) -> String? {
        guard let method = try fields.string("method", maxLength: 16) else { return nil }
        guard WebhookAction.methods.contains(method.uppercased()) else {
            throw ButtonsError.invalid("webhook.method", "webhook.method must be one of \(WebhookAction.methods.joined(separator: ", "))")
        }
        return method.uppercased()
    }

    /// `webhook.body`: any JSON within the template limits; null or absent is none.
    package static func bodyTemplate(_ fields: inout Fields) throws(ButtonsError) -> JSONValue? {
        guard let value = fields.raw("body") else { return nil }
        do { return try WebhookTemplate(value).template } catch {
            throw ButtonsError.invalid("webhook.body", "webhook.body: \(error.message)")
        }
    }

    /// What only the whole webhook can tell: a GET carries no body.
    package static func check(_ hook: WebhookAction) throws(ButtonsError) {
        if hook.method == "GET" && hook.body != nil {
            throw ButtonsError.invalid("webhook.body", "a GET request carries no body; use POST, PUT, PATCH or DELETE with webhook.body")
        }
    }

    package static func arguments(_ args: [JSONValue]) throws(ButtonsError) -> [String] {
        guard args.count <= 32 else { throw ButtonsError.invalid("script.args", "script.args holds at most 32 arguments") }
        return try args.enumerated().map { (i, arg) throws(ButtonsError) -> String in
            guard case .string(let text) = arg else { throw ButtonsError.badRequest("script.args[\(i)] must be a string", field: "script.args[\(i)]") }
            guard text.utf8.count <= 1024, !text.utf8.contains(0) else {
                throw ButtonsError.invalid("script.args[\(i)]", "script.args[\(i)] must be at most 1024 bytes with no NUL")
            }
            return text
        }
    }

    package static func validate(url: String, destinations: DestinationRules) throws(ButtonsError) {
        guard url.utf8.count <= 2048 else { throw ButtonsError.invalid("webhook.url", "webhook.url is longer than 2048 characters") }
        // Platform's one URL parser. Refused as Foundation's `URLComponents` refused before it:
        // a bad scheme, no host, a port that is not digits (or not 1…65535), text after `]`,
        // an unbracketed IPv6 address; the path may hold any other character (a placeholder's
        // braces among them: libcurl sends it encoded).
        guard !url.contains(where: { $0.isWhitespace || $0 == "\0" }), let parts = URLParts(url), Self.isScheme(parts.scheme),
            !parts.host.isEmpty, parts.isBracketed || !parts.host.contains(":"),
            parts.afterHost.isEmpty || parts.port != nil, parts.port.map({ $0.isEmpty || parts.portNumber != nil }) ?? true
        else { throw ButtonsError.invalid("webhook.url", "webhook.url must be an absolute http:// or https:// URL") }
        let scheme = parts.scheme.lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw ButtonsError.invalid("webhook.url", "webhook.url must use http or https, not \(scheme)")
        }
        guard parts.userInfo == nil else {
            throw ButtonsError.invalid("webhook.url", "webhook.url must not carry a user or password; send credentials in headers")
        }
        let port = parts.portNumber ?? (scheme == "https" ? 443 : 80)
        let host = parts.isBracketed ? "[\(parts.host)]" : String(parts.host)
        if let reason = destinations.refusal(literalHost: host, port: port) {
            throw ButtonsError.invalid("webhook.url", "webhook.url must not point at \(reason) (\(host))")
        }
    }

    /// A scheme: a letter, then letters, digits, `+`, `-` or `.`.
    static func isScheme(_ scheme: Substring) -> Bool {
        guard let first = scheme.utf8.first, first.isLetter else { return false }
        return scheme.utf8.allSatisfy { $0.isLetter || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }

    package static func headers(_ fields: inout Fields) throws(ButtonsError) -> [String: String] {
        guard let object = try fields.object("headers") else { return [:] }
        var headers: [String: String] = [:]
        var reader = object
        for name in reader.keys.sorted() {
            let path = "webhook.headers.\(name)"
            let token = name.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || Array("!#$%&'*+-.^_`|~".utf8).contains(b)
            }
            guard !name.isEmpty, name.utf8.count <= 128, token else { throw ButtonsError.invalid(path, "header name '\(name.prefix(64))' is not valid") }
            let lower = name.lowercased()
            guard !forbiddenHeaders.contains(lower), !lower.hasPrefix("webhook-") else {
                throw ButtonsError.invalid(path, "header '\(name)' is set by buttond and cannot be configured")
            }
            guard let value = try reader.string(name, maxLength: 4096) else { continue }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw ButtonsError.invalid(path, "header '\(name)' must not contain CR, LF or NUL")
            }
            headers[name] = value
        }
        guard headers.count <= 32 else { throw ButtonsError.invalid("webhook.headers", "at most 32 headers") }
        return headers
    }

    package static func validate(script name: String, in dir: String) throws(ButtonsError) {
        let bytes = Array(name.utf8)
        let safe = !bytes.isEmpty && bytes[0] != UInt8(ascii: ".") && bytes.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x5F || b == 0x2D
        }
        guard safe else {
            throw ButtonsError.invalid("script.name", "script.name must be a file name in the scripts directory (letters, digits, . _ -; no / or ..)")
        }
        var info = stat()
        let path = dir + "/" + name
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw ButtonsError.invalid("script.name", "no regular file '\(name)' in the scripts directory")
        }
        guard access(path, X_OK) == 0 else { throw ButtonsError.invalid("script.name", "'\(name)' is not executable") }
    }

    /// Whether a script argument, the webhook's URL, body template or a header value holds
    /// `{label}`, `{option_label}` or `{face_label}` (only then does a delivery look labels up).
    package var usesLabel: Bool {
        let names = ["{label}", "{option_label}", "{face_label}"]
        switch action {
        case .script(let script):
            return script.args.contains { names.contains($0) }
        case .webhook(let hook):
            let body = hook.body.map { String(decoding: JSONWriter.encode($0), as: UTF8.self) } ?? ""
            return ([hook.url, body] + hook.headers.values).contains { text in names.contains { text.contains($0) } }
        case .osc(let osc):
            let strings = osc.args.compactMap { if case .string(let text) = $0.value { text } else { nil } }
            return ([osc.address] + strings).contains { text in names.contains { text.contains($0) } }
        }
    }

    package func matches(_ event: ControlEvent) -> Bool {
        guard enabled, on.contains(event.type) else { return false }
        if let option, event.type == .select, event.data.option != option { return false }
        return true
    }
}

extension UInt8 {
    fileprivate var isLetter: Bool { (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A) }
}
