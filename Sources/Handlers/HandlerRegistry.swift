import JSON
import ThreadSupport
import Buttons
import ButtonEngine
import ButtonStore
import Outbox
import Delivery
import FoundationEssentials
import Platform
import Dispatch
import Synchronization

/// Every handler, indexed by owner so matching an event is a dictionary lookup on the hot
/// path; kept in step with SQLite and with the dispatcher (which is handed a new spec on every
/// change). Secrets live here and in the store, never in responses.
package final class HandlerRegistry: DeliveryRules {
    private struct Entry {
        var definition: Handler {
            didSet { (usesLabel, template) = Self.shaping(definition) }
        }
        /// Whether its webhook's body or headers hold `{label}`.
        var usesLabel: Bool
        /// Its webhook's body template, checked once.
        var template: WebhookTemplate?
        var secret: String? {
            didSet { key = secret.flatMap(Signature.key(fromSecret:)) ?? [] }
        }
        /// The secret's 32 bytes, decoded once.
        var key: [UInt8] = []
        var position: Int
        /// Why it is disabled (a 410, or by hand), while it is.
        var disabledReason: String?

        init(definition: Handler, secret: String?, position: Int) {
            self.definition = definition
            (usesLabel, template) = Self.shaping(definition)
            self.secret = secret
            self.key = secret.flatMap(Signature.key(fromSecret:)) ?? []
            self.position = position
        }

        static func shaping(_ handler: Handler) -> (usesLabel: Bool, template: WebhookTemplate?) {
            guard case .webhook(let hook) = handler.action else { return (handler.usesLabel, nil) }
            return (handler.usesLabel, hook.body.flatMap { try? WebhookTemplate($0) })
        }
    }

    private struct Tables {
        var byID: [String: Entry] = [:]
        var byOwner: [Source: [String]] = [:]
    }

    private let tables = Locked(Tables())
    package let store: ButtonStore
    package let scriptsDir: String?
    package let dispatcher: Dispatcher
    /// An event's labels (button or sheet, option, face), for deliveries whose templates use them.
    private let labels: @Sendable (ControlEvent) -> EventLabels
    /// Shared with the server's own targets (MQTT publishing), so every delivery's id is unique.
    private let ids: DeliveryIDs
    package static let maxPerOwner = 32

    package init(
        store: ButtonStore, scriptsDir: String?, dispatcher: Dispatcher, ids: DeliveryIDs,
        labels: @escaping @Sendable (ControlEvent) -> EventLabels
    ) {
        self.ids = ids
        self.store = store
        self.scriptsDir = scriptsDir
        self.dispatcher = dispatcher
        self.labels = labels
    }

    package func load() throws(StoreError) {
        for stored in try store.loadHandlers() {
            insert(Entry(definition: stored.handler, secret: stored.secret, position: stored.position))
        }
    }

    private func insert(_ entry: Entry) {
        tables.withLock { t in
            t.byID[entry.definition.id] = entry
            t.byOwner[entry.definition.owner, default: []].append(entry.definition.id)
        }
        publish(entry)
    }

    /// Tells the dispatcher how to send this handler's deliveries now.
    private func publish(_ entry: Entry) {
        let handler = entry.definition
        dispatcher.setHandler(
            handler.id, action: handler.action, key: entry.key, scriptsDirectory: scriptsDir, enabled: handler.enabled,
            ordered: handler.ordered, maxAttempts: handler.maxAttempts, expireAfterMs: handler.expireAfterMs)
    }

    private func save(_ entry: Entry) throws(ButtonsError) {
        do {
            try store.upsertHandler(StoredHandler(entry.definition, position: entry.position, secret: entry.secret))
        } catch {
            throw Registry.storageError(error)
        }
    }

    package func list(owner: Source) -> [Handler] {
        tables.withLock { t in (t.byOwner[owner] ?? []).compactMap { t.byID[$0]?.definition } }
    }

    package var all: [Handler] { tables.withLock { t in t.byID.values.sorted { $0.position < $1.position }.map(\.definition) } }

    package func get(_ id: String) throws(ButtonsError) -> Handler {
        guard let definition = tables.withLock({ $0.byID[id]?.definition }) else { throw ButtonsError.notFound("no handler with id '\(id)'") }
        return definition
    }

    /// Adds a handler; a webhook gets a new secret, returned this once.
    package func add(_ definition: Handler) throws(ButtonsError) -> String? {
        let count = tables.withLock { $0.byOwner[definition.owner]?.count ?? 0 }
        guard count < Self.maxPerOwner else {
            throw ButtonsError(.conflict, code: "limit_reached", message: "a \(definition.owner.kind) has at most \(Self.maxPerOwner) handlers")
        }
        let secret = definition.action.isSigned ? Signature.newSecret() : nil
        let position: Int
        do { position = try store.nextHandlerPosition(owner: definition.owner) } catch { throw Registry.storageError(error) }
        let entry = Entry(definition: definition, secret: secret, position: position)
        try save(entry)
        insert(entry)
        return secret
    }

    package func update(
        _ id: String, reason: String = "disabled by hand", _ change: (inout Handler) throws(ButtonsError) -> Void
    ) throws(ButtonsError) -> Handler {
        guard var entry = tables.withLock({ $0.byID[id] }) else { throw ButtonsError.notFound("no handler with id '\(id)'") }
        let wasEnabled = entry.definition.enabled
        try change(&entry.definition)
        if !entry.definition.enabled {
            if wasEnabled { entry.disabledReason = reason }
        } else {
            entry.disabledReason = nil
        }
        try save(entry)
        let saved = entry
        tables.withLock { $0.byID[id] = saved }
        publish(saved)
        return entry.definition
    }

    package func rotateSecret(_ id: String) throws(ButtonsError) -> String {
        guard var entry = tables.withLock({ $0.byID[id] }) else { throw ButtonsError.notFound("no handler with id '\(id)'") }
        guard entry.definition.action.isSigned else { throw ButtonsError.conflict("not_webhook", "only webhook handlers have a secret") }
        let secret = Signature.newSecret()
        entry.secret = secret
        try save(entry)
        let saved = entry
        tables.withLock { $0.byID[id] = saved }
        publish(saved)
        return secret
    }

    package func delete(_ id: String) throws(ButtonsError) {
        _ = try get(id)
        do { _ = try store.deleteHandler(id: id) } catch { throw Registry.storageError(error) }
        tables.withLock { t in
            if let owner = t.byID.removeValue(forKey: id)?.definition.owner { t.byOwner[owner]?.removeAll { $0 == id } }
        }
        dispatcher.removeHandlers([id])
    }

    /// Forgets an owner's handlers (the store deletes them, with their delivery logs, with
    /// their button or sheet).
    package func removeOwner(_ owner: Source) {
        let removed = tables.withLock { t in
            let ids = t.byOwner.removeValue(forKey: owner) ?? []
            for id in ids { t.byID[id] = nil }
            return ids
        }
        dispatcher.removeHandlers(removed)
    }

    package func secret(of id: String) -> String? { tables.withLock { $0.byID[id]?.secret } }

    /// Replaces every handler in memory (after the store committed the same set).
    package func replaceAll(_ handlers: [StoredHandler]) {
        let entries = handlers.map { Entry(definition: $0.handler, secret: $0.secret, position: $0.position) }
        let removed = tables.withLock { t in
            let kept = Set(handlers.map(\.handler.id))
            let removed = t.byID.keys.filter { !kept.contains($0) }
            t = Tables()
            for entry in entries {
                t.byID[entry.definition.id] = entry
                t.byOwner[entry.definition.owner, default: []].append(entry.definition.id)
            }
            return removed
        }
        dispatcher.removeHandlers(removed)
        for entry in entries { publish(entry) }
    }

    /// The deliveries these events make, one per (event, matching handler).
    package func deliveries(for events: ArraySlice<ControlEvent>, now: Int64) -> [DeliveryRow] {
        tables.withLock { t in
            var rows: [DeliveryRow] = []
            for event in events {
                guard let ids = t.byOwner[event.source] else { continue }
                for id in ids {
                    guard let entry = t.byID[id], entry.definition.matches(event) else { continue }
                    rows.append(delivery(of: event, to: entry, now: now))
                }
            }
            return rows
        }
    }

    /// A synthetic event (seq 0, an id that says it is a test) delivered to one handler now.
    package func testDelivery(_ id: String, now: Int64) throws(ButtonsError) -> DeliveryRow {
        guard let entry = tables.withLock({ $0.byID[id] }) else { throw ButtonsError.notFound("no handler with id '\(id)'") }
        let definition = entry.definition
        let type = definition.on.first ?? .tap
        let event = ControlEvent(
            seq: 0, idPrefix: "evt_test_\(String(now, radix: 36))_",
            gesture: GestureEvent(type, t: now, data: .sample(for: type, option: definition.option)), source: definition.owner)
        let row = delivery(of: event, to: entry, now: now)
        do { try store.enqueue([row]) } catch { throw Registry.storageError(error) }
        dispatcher.added([row])
        return row
    }

    /// Every delivery is made here: the event's facts, typed, and the body a template shapes.
    private func delivery(of event: ControlEvent, to entry: Entry, now: Int64) -> DeliveryRow {
        var row = DeliveryRow(of: event, to: entry.definition.id, ids: ids, now: now)
        if entry.usesLabel {
            let found = labels(event)
            (row.event.label, row.event.optionLabel, row.event.faceLabel) = (found.label, found.option, found.face)
        }
        if let template = entry.template {
            row.body = template.render(Placeholders(row.event), event: (try? JSONParser.parse(event.json)) ?? .null)
        }
        return row
    }

    /// Disabled by the dispatcher: the receiver answered 410 Gone.
    package func disable(_ id: String) {
        _ = try? update(id, reason: "the receiver answered 410 Gone") { (definition: inout Handler) throws(ButtonsError) in
            definition.enabled = false
        }
    }

    /// Why each of an owner's handlers is disabled, if it is.
    package func disabledReasons(owner: Source) -> [String: String] {
        tables.withLock { t in
            var reasons: [String: String] = [:]
            for id in t.byOwner[owner] ?? [] { reasons[id] = t.byID[id]?.disabledReason }
            return reasons
        }
    }
}

/// The labels `{label}`, `{option_label}` and `{face_label}` stand for, looked up when the
/// delivery is made.
package struct EventLabels: Sendable {
    package var label: String?
    package var option: String?
    package var face: String?

    package init(label: String? = nil, option: String? = nil, face: String? = nil) {
        self.label = label
        self.option = option
        self.face = face
    }
}
