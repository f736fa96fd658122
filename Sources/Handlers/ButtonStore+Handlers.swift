import Delivery
import ButtonStore
import ButtonEngine
import JSON

/// Handlers: what runs when a button or sheet emits an event, in typed columns.
extension ButtonStore {
    /// Every handler, grouped by owner and in each owner's order.
    public func loadHandlers() throws(StoreError) -> [StoredHandler] {
        try withConnection { connection throws(StoreError) in
            try connection.statement(
                """
                SELECT id, owner, position, on_events, option, enabled, ordered, kind, url, method, headers, body, name,
                    args, timeout_ms, max_attempts, expire_after_ms, secret
                FROM handlers ORDER BY owner, position, id
                """
            ).rows(Self.handler).compactMap { $0 }
        }
    }

    /// The position a new handler of `owner` should take to come last.
    public func nextHandlerPosition(owner: Source) throws(StoreError) -> Int {
        try withConnection { connection throws(StoreError) in
            let select = try connection.statement(
                "SELECT COALESCE(MAX(position), -1) + 1 FROM handlers WHERE owner = ?1")
            select.bind(owner.stored, at: 1)
            return Int(try select.scalar() ?? 0)
        }
    }

    /// Inserts a handler or replaces every field of an existing one.
    public func upsertHandler(_ handler: StoredHandler) throws(StoreError) {
        try withConnection { connection throws(StoreError) in
            try Self.upsertHandler(handler, in: connection)
        }
    }

    /// Replaces the whole registry (config import) in one transaction, and with it the
    /// handler set: unlisted handlers are deleted (with their delivery logs) and listed ones
    /// are upserted as given.
    public func replaceRegistry(
        buttons: [(id: String, config: String)], sheets: [(id: String, config: String)], handlers: [StoredHandler]
    ) throws(StoreError) {
        try replaceRegistry(buttons: buttons, sheets: sheets) { connection throws(StoreError) in
            let kept = Set(handlers.map(\.handler.id))
            for id in try Self.ids(connection.statement("SELECT id FROM handlers")) where !kept.contains(id) {
                try Self.deleteHandler(id: id, in: connection)
            }
            for handler in handlers {
                try Self.upsertHandler(handler, in: connection)
            }
        }
    }

    package static func upsertHandler(_ stored: StoredHandler, in connection: Connection) throws(StoreError) {
        let upsert = try connection.statement(
            """
            INSERT INTO handlers (id, owner, position, on_events, option, enabled, ordered, kind, url, method, headers,
                body, name, args, timeout_ms, max_attempts, expire_after_ms, secret)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
            ON CONFLICT (id) DO UPDATE SET owner = ?2, position = ?3, on_events = ?4, option = ?5, enabled = ?6,
                ordered = ?7, kind = ?8, url = ?9, method = ?10, headers = ?11, body = ?12, name = ?13, args = ?14,
                timeout_ms = ?15, max_attempts = ?16, expire_after_ms = ?17, secret = ?18
            """)
        let handler = stored.handler
        upsert.bind(handler.id, at: 1)
        upsert.bind(handler.owner.stored, at: 2)
        upsert.bind(stored.position, at: 3)
        upsert.bind(handler.on.map(\.rawValue).joined(separator: " "), at: 4)
        upsert.bind(handler.option, at: 5)
        upsert.bind(handler.enabled, at: 6)
        upsert.bind(handler.ordered, at: 7)
        upsert.bind(handler.kind, at: 8)
        func text(_ value: JSONValue) -> String { String(decoding: JSONWriter.encode(value), as: UTF8.self) }
        switch handler.action {
        case .webhook(let hook):
            upsert.bind(hook.url, at: 9)
            upsert.bind(hook.method, at: 10)
            upsert.bind(text(.object(hook.headers.mapValues { .string($0) })), at: 11)
            upsert.bind(hook.body.map(text), at: 12)
            upsert.bind(String?.none, at: 13)
            upsert.bind(String?.none, at: 14)
            upsert.bind(hook.timeoutMs, at: 15)
        case .script(let run):
            upsert.bind(String?.none, at: 9)
            upsert.bind(String?.none, at: 10)
            upsert.bind(String?.none, at: 11)
            upsert.bind(String?.none, at: 12)
            upsert.bind(run.name, at: 13)
            upsert.bind(text(.array(run.args.map { .string($0) })), at: 14)
            upsert.bind(run.timeoutMs, at: 15)
        case .osc(let osc):
            // The columns of the other kinds, where they mean the same: the URL, the address
            // (a name of what runs), the arguments (typed objects), and the TCP framing as
            // the "method" of sending.
            upsert.bind(osc.url, at: 9)
            upsert.bind(osc.slip ? "slip" : String?.none, at: 10)
            upsert.bind(String?.none, at: 11)
            upsert.bind(String?.none, at: 12)
            upsert.bind(osc.address, at: 13)
            upsert.bind(text(.array(osc.args.map { ["type": .string($0.type), "value": $0.value] })), at: 14)
            upsert.bind(Int64(0), at: 15)
        }
        upsert.bind(handler.maxAttempts, at: 16)
        upsert.bind(handler.expireAfterMs, at: 17)
        upsert.bind(stored.secret, at: 18)
        try upsert.run()
    }

    /// A row as a handler; nil for one this build cannot read (an unknown owner).
    package static func handler(_ row: Statement) -> StoredHandler? {
        guard let owner = Source(stored: row.text(1)) else { return nil }
        func json(_ column: Int32) -> JSONValue? { row.optionalText(column).flatMap { try? JSONParser.parse(Array($0.utf8)) } }
        let action: Handler.Action
        if row.text(7) == "webhook" {
            var hook = WebhookAction(url: row.optionalText(8) ?? "")
            hook.method = row.optionalText(9) ?? "POST"
            if case .object(let headers)? = json(10) {
                hook.headers = headers.compactMapValues { if case .string(let value) = $0 { value } else { nil } }
            }
            hook.body = json(11)
            hook.timeoutMs = row.int64(14)
            action = .webhook(hook)
        } else if row.text(7) == "osc" {
            var osc = OSCAction(url: row.optionalText(8) ?? "", address: row.optionalText(12) ?? "")
            osc.slip = row.optionalText(9) == "slip"
            if case .array(let args)? = json(13) {
                osc.args = args.compactMap { arg in
                    guard case .string(let type)? = arg["type"] else { return nil }
                    return OSCAction.Argument(type: type, value: arg["value"] ?? .null)
                }
            }
            action = .osc(osc)
        } else {
            var run = ScriptAction(name: row.optionalText(12) ?? "")
            if case .array(let args)? = json(13) { run.args = args.compactMap { if case .string(let arg) = $0 { arg } else { nil } } }
            run.timeoutMs = row.int64(14)
            action = .script(run)
        }
        let handler = Handler(
            id: row.text(0), owner: owner, on: row.text(3).split(separator: " ").compactMap { EventType(rawValue: String($0)) },
            option: row.optionalText(4), enabled: row.bool(5), ordered: row.bool(6), action: action,
            maxAttempts: row.int64(15), expireAfterMs: row.optionalInt64(16))
        return StoredHandler(handler, position: row.int(2), secret: row.optionalText(17))
    }
}
