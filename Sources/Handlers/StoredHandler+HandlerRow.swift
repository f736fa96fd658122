import ButtonEngine
import ButtonStore
import Delivery
import JSON

/// A handler as the store's row and back: what each kind keeps in the table's shared columns.
/// The SQL is the store's (`ButtonStore+Handlers.swift`); this is only the meaning of a row.
extension StoredHandler: HandlerRowConvertible {
    public var row: HandlerRow {
        var row = HandlerRow(
            id: handler.id, owner: handler.owner, position: position, on: handler.on, option: handler.option,
            enabled: handler.enabled, ordered: handler.ordered, kind: handler.kind, timeoutMs: 0,
            maxAttempts: handler.maxAttempts, expireAfterMs: handler.expireAfterMs, secret: secret)
        func text(_ value: JSONValue) -> String { String(decoding: JSONWriter.encode(value), as: UTF8.self) }
        switch handler.action {
        case .webhook(let hook):
            row.url = hook.url
            row.method = hook.method
            row.headers = text(.object(hook.headers.mapValues { .string($0) }))
            row.body = hook.body.map(text)
            row.timeoutMs = hook.timeoutMs
        case .script(let run):
            row.name = run.name
            row.args = text(.array(run.args.map { .string($0) }))
            row.timeoutMs = run.timeoutMs
        case .osc(let osc):
            // The columns of the other kinds, where they mean the same: the URL, the address
            // (a name of what runs), the arguments (typed objects), and the TCP framing as
            // the "method" of sending.
            row.url = osc.url
            row.method = osc.slip ? "slip" : nil
            row.name = osc.address
            row.args = text(.array(osc.args.map { ["type": .string($0.type), "value": $0.value] }))
        }
        return row
    }

    /// The handler a row keeps.
    public init(row: HandlerRow) {
        func json(_ text: String?) -> JSONValue? { text.flatMap { try? JSONParser.parse(Array($0.utf8)) } }
        let action: Handler.Action
        if row.kind == "webhook" {
            var hook = WebhookAction(url: row.url ?? "")
            hook.method = row.method ?? "POST"
            if case .object(let headers)? = json(row.headers) {
                hook.headers = headers.compactMapValues { if case .string(let value) = $0 { value } else { nil } }
            }
            hook.body = json(row.body)
            hook.timeoutMs = row.timeoutMs
            action = .webhook(hook)
        } else if row.kind == "osc" {
            var osc = OSCAction(url: row.url ?? "", address: row.name ?? "")
            osc.slip = row.method == "slip"
            if case .array(let args)? = json(row.args) {
                osc.args = args.compactMap { arg in
                    guard case .string(let type)? = arg["type"] else { return nil }
                    return OSCAction.Argument(type: type, value: arg["value"] ?? .null)
                }
            }
            action = .osc(osc)
        } else {
            var run = ScriptAction(name: row.name ?? "")
            if case .array(let args)? = json(row.args) { run.args = args.compactMap { if case .string(let arg) = $0 { arg } else { nil } } }
            run.timeoutMs = row.timeoutMs
            action = .script(run)
        }
        let handler = Handler(
            id: row.id, owner: row.owner, on: row.on, option: row.option, enabled: row.enabled, ordered: row.ordered,
            action: action, maxAttempts: row.maxAttempts, expireAfterMs: row.expireAfterMs)
        self.init(handler, position: row.position, secret: row.secret)
    }
}
