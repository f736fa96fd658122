import ThreadSupport
import Buttons
import ButtonEngine
import ButtonStore
import Delivery
import FoundationEssentials
import Glibc
import Dispatch
import MicroHTTP
import Synchronization

/// Every handler, indexed by owner so matching an event is a dictionary lookup on the hot
/// path; kept in step with SQLite. Secrets live here and in the store, never in responses.
final class HandlerRegistry: DeliveryRules {
    private struct Entry {
        var definition: HandlerDefinition
        var secret: String?
        var position: Int
    }

    private struct Tables {
        var byID: [String: Entry] = [:]
        var byOwner: [HandlerDefinition.Owner: [String]] = [:]
    }

    private let tables = Locked(Tables())
    let store: ButtonStore
    let scriptsDir: String?
    static let maxPerOwner = 32

    init(store: ButtonStore, scriptsDir: String?) {
        self.store = store
        self.scriptsDir = scriptsDir
    }

    func load() throws {
        let context = HandlerDefinition.Context(scriptsDir: scriptsDir, loading: true, envelope: true)
        for stored in try store.loadHandlers() {
            guard let owner = HandlerDefinition.Owner(stored: stored.owner) else { continue }
            var definition = try HandlerDefinition.create(from: try JSONParser.parse(Array(stored.config.utf8)), owner: owner, context: context)
            definition.id = stored.id
            definition.enabled = stored.enabled
            insert(Entry(definition: definition, secret: stored.secret, position: stored.position))
        }
    }

    private func insert(_ entry: Entry) {
        tables.withLock { t in
            t.byID[entry.definition.id] = entry
            t.byOwner[entry.definition.owner, default: []].append(entry.definition.id)
        }
    }

    private func save(_ entry: Entry) throws(ButtonsError) {
        let config = String(decoding: JSONWriter.encode(entry.definition.json), as: UTF8.self)
        do {
            try store.upsertHandler(
                StoredHandler(
                    id: entry.definition.id, owner: entry.definition.owner.stored, config: config, secret: entry.secret,
                    enabled: entry.definition.enabled, position: entry.position))
        } catch {
            throw Registry.storageError(error)
        }
    }

    func list(owner: HandlerDefinition.Owner) -> [HandlerDefinition] {
        tables.withLock { t in (t.byOwner[owner] ?? []).compactMap { t.byID[$0]?.definition } }
    }

    var all: [HandlerDefinition] { tables.withLock { t in t.byID.values.sorted { $0.position < $1.position }.map(\.definition) } }

    func get(_ id: String) throws(ButtonsError) -> HandlerDefinition {
        guard let definition = tables.withLock({ $0.byID[id]?.definition }) else { throw ButtonsError.notFound("no handler with id '\(id)'") }
        return definition
    }

    /// Adds a handler; a webhook gets a new secret, returned this once.
    func add(_ definition: HandlerDefinition) throws(ButtonsError) -> String? {
        let count = tables.withLock { $0.byOwner[definition.owner]?.count ?? 0 }
        guard count < Self.maxPerOwner else {
            throw ButtonsError(.conflict, code: "limit_reached", message: "a \(definition.owner.kind) has at most \(Self.maxPerOwner) handlers")
        }
        var secret: String?
        if case .webhook = definition.action { secret = Signature.newSecret() }
        let position: Int
        do { position = try store.nextHandlerPosition(owner: definition.owner.stored) } catch { throw Registry.storageError(error) }
        let entry = Entry(definition: definition, secret: secret, position: position)
        try save(entry)
        insert(entry)
        return secret
    }

    func update(_ id: String, _ change: (inout HandlerDefinition) throws(ButtonsError) -> Void) throws(ButtonsError) -> HandlerDefinition {
        guard var entry = tables.withLock({ $0.byID[id] }) else { throw ButtonsError.notFound("no handler with id '\(id)'") }
        try change(&entry.definition)
        try save(entry)
        let saved = entry
        tables.withLock { $0.byID[id] = saved }
        return entry.definition
    }

    func rotateSecret(_ id: String) throws(ButtonsError) -> String {
        guard var entry = tables.withLock({ $0.byID[id] }) else { throw ButtonsError.notFound("no handler with id '\(id)'") }
        guard case .webhook = entry.definition.action else { throw ButtonsError.conflict("not_webhook", "only webhook handlers have a secret") }
        let secret = Signature.newSecret()
        entry.secret = secret
        try save(entry)
        let saved = entry
        tables.withLock { $0.byID[id] = saved }
        return secret
    }

    func delete(_ id: String) throws(ButtonsError) {
        _ = try get(id)
        do { _ = try store.deleteHandler(id: id) } catch { throw Registry.storageError(error) }
        tables.withLock { t in
            if let owner = t.byID.removeValue(forKey: id)?.definition.owner { t.byOwner[owner]?.removeAll { $0 == id } }
        }
    }

    /// Forgets an owner's handlers from memory (the store deletes them with their button or sheet).
    func removeOwner(_ owner: HandlerDefinition.Owner) {
        tables.withLock { t in
            for id in t.byOwner.removeValue(forKey: owner) ?? [] { t.byID[id] = nil }
        }
    }

    func secret(of id: String) -> String? { tables.withLock { $0.byID[id]?.secret } }

    /// Replaces every handler in memory (after the store committed the same set).
    func replaceAll(_ handlers: [StoredHandler], definitions: [HandlerDefinition]) {
        tables.withLock { t in
            t = Tables()
            for (stored, definition) in zip(handlers, definitions) {
                t.byID[definition.id] = Entry(definition: definition, secret: stored.secret, position: stored.position)
                t.byOwner[definition.owner, default: []].append(definition.id)
            }
        }
    }

    /// Outbox rows for the handlers these events fire, one per (event, handler).
    func deliveries(for events: [ControlEvent], now: Int64) -> [OutboxRow] {
        tables.withLock { t in
            var rows: [OutboxRow] = []
            for event in events {
                let owner: HandlerDefinition.Owner
                switch event.source {
                case .button(let id): owner = .button(id)
                case .sheet(let id): owner = .sheet(id)
                }
                guard let ids = t.byOwner[owner] else { continue }
                for id in ids {
                    guard let entry = t.byID[id], entry.definition.matches(event) else { continue }
                    rows.append(
                        OutboxRow(id: Self.newDeliveryID(), handler: id, eventSeq: event.seq, body: event.json, nextAttemptAt: now, createdAt: now))
                }
            }
            return rows
        }
    }

    /// `dlv_`, the time in microseconds (10 base-36 digits, so ids sort by creation and the
    /// outbox's key index grows at its end instead of gaining a random page per delivery),
    /// then 12 random base-36 digits.
    static func newDeliveryID() -> String {
        let micros = String(UInt64(max(0, Timestamp.preciseNow() * 1000)), radix: 36)
        var generator = SystemRandomNumberGenerator()
        let random = String(generator.next(upperBound: UInt64(4_738_381_338_321_616_896)), radix: 36)  // 36^12
        return "dlv_" + String(repeating: "0", count: max(0, 10 - micros.count)) + micros
            + String(repeating: "0", count: max(0, 12 - random.count)) + random
    }

    /// What the dispatcher needs to send a delivery of handler `id` now.
    func spec(_ id: String) -> HandlerSpec? {
        guard let entry = tables.withLock({ $0.byID[id] }) else { return nil }
        let definition = entry.definition
        let action: HandlerSpec.Action
        switch definition.action {
        case .webhook(let hook):
            action = .webhook(
                HandlerSpec.Webhook(
                    url: hook.url, headers: hook.headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                    key: entry.secret.flatMap(Signature.key(fromSecret:)) ?? [], timeoutMs: Int(hook.timeoutMs)))
        case .script(let run):
            // Without --scripts-dir (this start) a stored script handler cannot run: leave it pending.
            guard let dir = scriptsDir else { return nil }
            action = .script(HandlerSpec.Script(directory: dir, name: run.name, args: run.args, timeoutMs: Int(run.timeoutMs)))
        }
        return HandlerSpec(
            id: id, enabled: definition.enabled, action: action, maxAttempts: Int(definition.maxAttempts),
            expireAfterMs: definition.expireAfterMs)
    }

    func disable(_ id: String) {
        _ = try? update(id) { (definition: inout HandlerDefinition) throws(ButtonsError) in definition.enabled = false }
    }
}
