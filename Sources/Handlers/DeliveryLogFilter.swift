import ButtonEngine
import ButtonStore
import Buttons
import Delivery
import Outbox

/// The delivery log's filters (`GET /api/v1/deliveries`): `?handler=`, `?kind=`, `?button=` or
/// `?sheet=`, `?status=` (a stored or live status, or `failing`: unfinished with at least one
/// failed attempt) and the `?before=` cursor; and the rows they let through.
package struct DeliveryLogFilter {
    package enum Status: Equatable {
        case stored(DeliveryStatus)
        case failing
    }

    package var status: Status?
    package var before: Int64?
    /// The handler ids whose deliveries are listed (nil: every one).
    package var handlers: Set<String>?
    package var source: Source?

    package static let kinds = ["webhook", "script", "osc", "mqtt"]

    /// The filter a request's `query` asks for; `mqttTarget`: the target MQTT publishing's
    /// deliveries go to (`?kind=mqtt`).
    package init(query: [String: String], handlers registry: HandlerRegistry, mqttTarget: String) throws(ButtonsError) {
        if let name = query["status"] {
            if name == "failing" {
                status = .failing
            } else if let known = DeliveryStatus(name: name) {
                status = .stored(known)
            } else {
                let names = (DeliveryStatus.allCases.map(\.name) + ["failing"]).sorted().joined(separator: ", ")
                throw ButtonsError.invalid("status", "status must be one of \(names)")
            }
        }
        if let cursor = query["before"] {
            guard let id = DeliveryRow.id(publicID: cursor) else {
                throw ButtonsError.invalid("before", "before must be a delivery id (dlv_…)")
            }
            before = id
        }
        if let handler = query["handler"] { handlers = [handler] }
        if let list = query["kind"] {
            // One kind or several (`kind=webhook,script,osc`: every handler's, without the
            // server's own MQTT publishing).
            let kinds = Set(list.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
            guard kinds.isSubset(of: Self.kinds) else {
                throw ButtonsError.invalid(
                    "kind", "kind must be one or more of \(Self.kinds.joined(separator: ", ")), separated by commas")
            }
            var ofKind = Set(registry.all.filter { kinds.contains($0.kind) }.map(\.id))
            if kinds.contains("mqtt") { ofKind.insert(mqttTarget) }
            handlers = handlers.map { $0.intersection(ofKind) } ?? ofKind
        }
        switch (query["button"], query["sheet"]) {
        case (let button?, nil): source = .button(try Self.sourceName(button, field: "button"))
        case (nil, let sheet?): source = .sheet(try Self.sourceName(sheet, field: "sheet"))
        case (nil, nil): break
        case (_?, _?): throw ButtonsError.invalid("sheet", "give button or sheet, not both: a delivery comes from one")
        }
    }

    private static func sourceName(_ name: String, field: String) throws(ButtonsError) -> String {
        guard Names.isValid(name) else {
            throw ButtonsError.invalid(field, "\(field) must be a button or sheet id (^[a-z0-9][a-z0-9._-]{0,63}$)")
        }
        return name
    }

    /// At most `limit` rows it lets through, newest first: unfinished ones from the
    /// dispatcher's memory, the others read from the store beside the writer.
    package func rows(dispatcher: Dispatcher, store: ButtonStore, limit: Int) throws(ButtonsError) -> [DeliveryRow] {
        let source = self.source
        let fromSource = { (row: DeliveryRow) in source.map { row.event.source == $0 } ?? true }
        switch status {
        case .stored(let status)? where status == .pending || status == .inFlight:
            return dispatcher.unfinished(handlers: handlers, before: before, limit: limit) { row, inFlight in
                inFlight == (status == .inFlight) && fromSource(row)
            }
        case .failing?:
            return dispatcher.unfinished(handlers: handlers, before: before, limit: limit) { row, _ in
                row.attempts > 0 && fromSource(row)
            }
        case .stored(let status)?:
            return try stored(status: status, store: store, limit: limit)
        case nil:
            return try stored(status: nil, store: store, limit: limit)
        }
    }

    private func stored(status: DeliveryStatus?, store: ButtonStore, limit: Int) throws(ButtonsError) -> [DeliveryRow] {
        do {
            return try store.deliveries(
                handlers: handlers.map { $0.sorted() }, source: source, status: status, attempted: false, before: before,
                limit: limit)
        } catch {
            throw Registry.storageError(error)
        }
    }
}
