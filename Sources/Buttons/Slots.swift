import ButtonEngine
import ButtonStore
import JSON
import ThreadSupport

/// A definition the registry stores: an id and the JSON kept in SQLite.
package protocol RegistryDefinition: Sendable {
    var id: String { get }
    var group: String? { get }
    var json: JSONValue { get }
}

extension ButtonDefinition: RegistryDefinition {}
extension SheetDefinition: RegistryDefinition {}

/// One registered thing (a button, a sheet): its definition and live state behind its own
/// lock, so inputs for different ones never wait on each other and one's apply one at a time.
/// The registry keeps buttons and sheets through this one shape.
package protocol RegistrySlot: AnyObject, Sendable {
    associatedtype Definition: RegistryDefinition
    /// "button" or "sheet", for messages.
    static var kind: String { get }
    var id: String { get }
    var lock: Condition { get }
    var definition: Definition { get }
    var removed: Bool { get set }
    init(definition: Definition)
    /// Takes a new definition and keeps the live state (lock held).
    func adopt(_ definition: Definition)

    static func upsert(_ definition: Definition, in store: ButtonStore) throws(StoreError)
    static func delete(_ id: String, in store: ButtonStore) throws(StoreError)
    static func stored(_ definition: Definition) -> Registry.RegistryChange
    static func deleted(_ id: String, group: String?) -> Registry.RegistryChange
}

extension RegistrySlot {
    /// Runs `body` with the lock held.
    package func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T { try lock.locked(body) }
}

package final class ButtonSlot: RegistrySlot, TimedSlot, @unchecked Sendable {  // every `var` is guarded by `lock`, but `scheduledAt`, the sequencer thread's
    package static let kind = "button"
    package let id: String
    package let lock = Condition()
    package var definition: ButtonDefinition
    package var machine: ButtonMachine
    package var removed = false
    /// Server time (ms) of the timer the scheduler holds for this button, if any (the sequencer's thread only).
    package var scheduledAt: Int64?

    package init(definition: ButtonDefinition, machine: ButtonMachine) {
        self.id = definition.id
        self.definition = definition
        self.machine = machine
    }

    package convenience init(definition: ButtonDefinition) {
        self.init(definition: definition, machine: ButtonMachine(config: definition.config))
    }

    package func adopt(_ definition: ButtonDefinition) {
        self.definition = definition
        machine.config = definition.config
    }

    package static func upsert(_ definition: ButtonDefinition, in store: ButtonStore) throws(StoreError) {
        try store.upsertButton(id: definition.id, config: String(decoding: JSONWriter.encode(definition.json), as: UTF8.self))
    }

    package static func delete(_ id: String, in store: ButtonStore) throws(StoreError) { _ = try store.deleteButton(id: id) }
    package static func stored(_ definition: ButtonDefinition) -> Registry.RegistryChange { .button(definition) }
    package static func deleted(_ id: String, group: String?) -> Registry.RegistryChange { .buttonDeleted(id, group: group) }
}

/// One registered action sheet and its open/closed state.
package final class SheetSlot: RegistrySlot, TimedSlot, @unchecked Sendable {  // every `var` is guarded by `lock`, but `scheduledAt`, the sequencer thread's
    package static let kind = "sheet"
    package let id: String
    package let lock = Condition()
    package var definition: SheetDefinition
    package var machine: SheetMachine
    package var removed = false
    /// Server time (ms) of the timeout the scheduler holds for this sheet, if any (the sequencer's thread only).
    package var scheduledAt: Int64?

    package init(definition: SheetDefinition) {
        self.id = definition.id
        self.definition = definition
        self.machine = SheetMachine(optionIDs: definition.options.map(\.id), openTimeoutMs: definition.openTimeoutMs)
    }

    package func adopt(_ definition: SheetDefinition) {
        self.definition = definition
        machine.optionIDs = definition.options.map(\.id)
        machine.openTimeoutMs = definition.openTimeoutMs
    }

    package static func upsert(_ definition: SheetDefinition, in store: ButtonStore) throws(StoreError) {
        try store.upsertSheet(id: definition.id, config: String(decoding: JSONWriter.encode(definition.json), as: UTF8.self))
    }

    package static func delete(_ id: String, in store: ButtonStore) throws(StoreError) { _ = try store.deleteSheet(id: id) }
    package static func stored(_ definition: SheetDefinition) -> Registry.RegistryChange { .sheet(definition) }
    package static func deleted(_ id: String, group: String?) -> Registry.RegistryChange { .sheetDeleted(id, group: group) }
}

/// The slots of one kind, by id and in creation order.
final class SlotTable<Slot: RegistrySlot>: Sendable {
    private struct Table {
        var byID: [String: Slot] = [:]
        var order: [String] = []
    }

    private let table = Locked(Table())
    /// How many the table may hold.
    let limit: Int

    init(limit: Int = .max) { self.limit = limit }

    func get(_ id: String) throws(ButtonsError) -> Slot {
        guard let slot = table.withLock({ $0.byID[id] }) else { throw ButtonsError.notFound("no \(Slot.kind) named '\(id)'") }
        return slot
    }

    var count: Int { table.withLock { $0.order.count } }

    func list(offset: Int = 0, limit: Int = .max) -> [Slot] {
        table.withLock { table in
            guard offset < table.order.count else { return [] }
            let end = limit >= table.order.count - offset ? table.order.count : offset + limit
            return table.order[offset..<end].compactMap { table.byID[$0] }
        }
    }

    /// Adds a slot; refused when the id is taken or the table is full.
    func insert(_ slot: Slot) throws(ButtonsError) {
        try table.withLock { table throws(ButtonsError) in
            guard table.byID[slot.id] == nil else {
                throw ButtonsError.conflict("already_exists", "a \(Slot.kind) named '\(slot.id)' already exists")
            }
            guard table.order.count < limit else {
                throw ButtonsError(.conflict, code: "limit_reached", message: "the registry holds at most \(limit) \(Slot.kind)s")
            }
            table.byID[slot.id] = slot
            table.order.append(slot.id)
        }
    }

    func remove(_ id: String) {
        table.withLock { table in
            table.byID[id] = nil
            table.order.removeAll { $0 == id }
        }
    }

    /// Holds exactly `definitions` (in their order): slots that stay keep their live state,
    /// the others are marked removed. Returns the ids that went.
    /// Returns the ones gone, each with the group it was in.
    func replace(with definitions: [Slot.Definition]) -> [(id: String, group: String?)] {
        table.withLock { table in
            var next = Table()
            for definition in definitions {
                let slot = table.byID[definition.id] ?? Slot(definition: definition)
                slot.locked { slot.adopt(definition) }
                next.byID[definition.id] = slot
                next.order.append(definition.id)
            }
            var gone: [(id: String, group: String?)] = []
            for id in table.order where next.byID[id] == nil {
                guard let slot = table.byID[id] else { continue }
                gone.append((id, slot.locked { slot.removed = true; return slot.definition.group }))
            }
            table = next
            return gone
        }
    }
}
