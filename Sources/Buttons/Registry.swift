import ThreadSupport
import ButtonEngine
import ButtonStore
import Platform
import JSON
import Synchronization

/// Every button and sheet, live: lookups by id, listing in creation order, and the
/// create/update/delete operations that keep memory and SQLite in step.
package final class Registry: Sendable {
    private struct Table<Slot> {
        var byID: [String: Slot] = [:]
        var order: [String] = []
    }

    private let buttons = Locked(Table<ButtonSlot>())
    private let sheets = Locked(Table<SheetSlot>())
    private let observers = Locked<[@Sendable (RegistryChange) -> Void]>([])
    package let store: ButtonStore
    package let maxButtons: Int

    /// What changed in the registry, once it is stored.
    package enum RegistryChange: Sendable {
        case button(ButtonDefinition)
        case buttonDeleted(String)
        case sheet(SheetDefinition)
        case sheetDeleted(String)
    }

    /// Calls `observer` after every stored change (MQTT discovery follows the registry).
    package func onChange(_ observer: @escaping @Sendable (RegistryChange) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    private func changed(_ change: RegistryChange) {
        for observer in observers.withLock({ $0 }) { observer(change) }
    }

    package init(store: ButtonStore, maxButtons: Int) {
        self.store = store
        self.maxButtons = maxButtons
    }

    package static func storageError(_ error: any Error) -> ButtonsError {
        ButtonsError.unavailable("storage failed: \(error) (`buttond check` tells whether the database is damaged)", retryAfter: 1)
    }

    // MARK: Buttons

    package func button(_ id: String) throws(ButtonsError) -> ButtonSlot {
        guard let slot = buttons.withLock({ $0.byID[id] }) else { throw ButtonsError.notFound("no button named '\(id)'") }
        return slot
    }

    package var buttonCount: Int { buttons.withLock { $0.order.count } }

    package func buttonSlots(offset: Int = 0, limit: Int = .max) -> [ButtonSlot] {
        buttons.withLock { table in
            guard offset < table.order.count else { return [] }
            let end = limit >= table.order.count - offset ? table.order.count : offset + limit
            return table.order[offset..<end].compactMap { table.byID[$0] }
        }
    }

    /// Adds a loaded or new slot to memory; false if the id is taken.
    package func insert(_ slot: ButtonSlot) -> Bool {
        buttons.withLock { table in
            guard table.byID[slot.id] == nil else { return false }
            table.byID[slot.id] = slot
            table.order.append(slot.id)
            return true
        }
    }

    package func createButton(_ definition: ButtonDefinition) throws(ButtonsError) -> ButtonSlot {
        let slot = ButtonSlot(definition: definition, machine: ButtonMachine(config: definition.config))
        try buttons.withLock { table throws(ButtonsError) in
            guard table.byID[slot.id] == nil else {
                throw ButtonsError.conflict("already_exists", "a button named '\(slot.id)' already exists")
            }
            guard table.order.count < maxButtons else {
                throw ButtonsError(.conflict, code: "limit_reached", message: "the registry holds at most \(maxButtons) buttons")
            }
            table.byID[slot.id] = slot
            table.order.append(slot.id)
        }
        do throws(StoreError) {
            try store.upsertButton(id: definition.id, config: String(decoding: JSONWriter.encode(definition.json), as: UTF8.self))
        } catch {
            removeButtonFromMemory(slot.id)
            throw Self.storageError(error)
        }
        changed(.button(definition))
        return slot
    }

    package func saveDefinition(_ definition: ButtonDefinition) throws(ButtonsError) {
        do throws(StoreError) {
            try store.upsertButton(id: definition.id, config: String(decoding: JSONWriter.encode(definition.json), as: UTF8.self))
        } catch {
            throw Self.storageError(error)
        }
        changed(.button(definition))
    }

    private func removeButtonFromMemory(_ id: String) {
        buttons.withLock { table in
            table.byID[id] = nil
            table.order.removeAll { $0 == id }
        }
    }

    package func deleteButton(_ id: String) throws(ButtonsError) {
        let slot = try button(id)
        try slot.locked { () throws(ButtonsError) in
            do throws(StoreError) { try store.deleteButton(id: id) } catch { throw Self.storageError(error) }
            slot.removed = true
        }
        removeButtonFromMemory(id)
        changed(.buttonDeleted(id))
    }

    // MARK: Sheets

    package func sheet(_ id: String) throws(ButtonsError) -> SheetSlot {
        guard let slot = sheets.withLock({ $0.byID[id] }) else { throw ButtonsError.notFound("no sheet named '\(id)'") }
        return slot
    }

    package var sheetSlots: [SheetSlot] { sheets.withLock { table in table.order.compactMap { table.byID[$0] } } }

    package func insert(_ slot: SheetSlot) -> Bool {
        sheets.withLock { table in
            guard table.byID[slot.id] == nil else { return false }
            table.byID[slot.id] = slot
            table.order.append(slot.id)
            return true
        }
    }

    package func createSheet(_ definition: SheetDefinition) throws(ButtonsError) -> SheetSlot {
        let slot = SheetSlot(definition: definition)
        guard insert(slot) else { throw ButtonsError.conflict("already_exists", "a sheet named '\(slot.id)' already exists") }
        do {
            try saveSheet(definition)
        } catch {
            removeSheetFromMemory(slot.id)
            throw error
        }
        return slot
    }

    package func saveSheet(_ definition: SheetDefinition) throws(ButtonsError) {
        do throws(StoreError) {
            try store.upsertSheet(id: definition.id, config: String(decoding: JSONWriter.encode(definition.json), as: UTF8.self))
        } catch {
            throw Self.storageError(error)
        }
        changed(.sheet(definition))
    }

    private func removeSheetFromMemory(_ id: String) {
        sheets.withLock { table in
            table.byID[id] = nil
            table.order.removeAll { $0 == id }
        }
    }

    package func deleteSheet(_ id: String) throws(ButtonsError) {
        let slot = try sheet(id)
        try slot.locked { () throws(ButtonsError) in
            do throws(StoreError) { try store.deleteSheet(id: id) } catch { throw Self.storageError(error) }
            slot.removed = true
        }
        removeSheetFromMemory(id)
        changed(.sheetDeleted(id))
    }

    /// Makes memory hold exactly these definitions (after the store committed the same set):
    /// buttons that stay keep their live state, the others are removed.
    package func replaceAll(buttons newButtons: [ButtonDefinition], sheets newSheets: [SheetDefinition]) {
        let goneButtons = buttons.withLock { table in
            let kept = Set(newButtons.map(\.id))
            return table.order.filter { !kept.contains($0) }
        }
        let goneSheets = sheets.withLock { table in
            let kept = Set(newSheets.map(\.id))
            return table.order.filter { !kept.contains($0) }
        }
        defer {
            for id in goneButtons { changed(.buttonDeleted(id)) }
            for id in goneSheets { changed(.sheetDeleted(id)) }
            for definition in newButtons { changed(.button(definition)) }
            for definition in newSheets { changed(.sheet(definition)) }
        }
        buttons.withLock { table in
            var next = Table<ButtonSlot>()
            for definition in newButtons {
                let slot: ButtonSlot
                if let existing = table.byID[definition.id] {
                    slot = existing
                    slot.locked {
                        slot.definition = definition
                        slot.machine.config = definition.config
                    }
                } else {
                    slot = ButtonSlot(definition: definition, machine: ButtonMachine(config: definition.config))
                }
                next.byID[definition.id] = slot
                next.order.append(definition.id)
            }
            for (id, slot) in table.byID where next.byID[id] == nil { slot.locked { slot.removed = true } }
            table = next
        }
        sheets.withLock { table in
            var next = Table<SheetSlot>()
            for definition in newSheets {
                let slot = table.byID[definition.id] ?? SheetSlot(definition: definition)
                slot.locked {
                    slot.definition = definition
                    slot.machine.optionIDs = definition.options.map(\.id)
                }
                next.byID[definition.id] = slot
                next.order.append(definition.id)
            }
            for (id, slot) in table.byID where next.byID[id] == nil { slot.locked { slot.removed = true } }
            table = next
        }
    }
}
