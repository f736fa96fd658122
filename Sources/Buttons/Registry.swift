import ThreadSupport
import ButtonEngine
import ButtonStore
import Platform
import JSON
import Synchronization

/// Every button and sheet, live: lookups by id, listing in creation order, and the
/// create/update/delete operations that keep memory and SQLite in step.
package final class Registry: Sendable {
    private let buttons: SlotTable<ButtonSlot>
    private let sheets = SlotTable<SheetSlot>()
    private let observers = Locked<[@Sendable (RegistryChange) -> Void]>([])
    /// Buttons a change of definition disabled, whose presses, series and armed windows the
    /// sequencer is still to end (`Sequencer.endDisabled`).
    private let justDisabled = Locked<[String]>([])
    package let store: ButtonStore
    package let maxButtons: Int
    /// The panel's icon names (`public/icons/*.svg`, read by whoever made the registry): an
    /// `icon` must be one of them; empty: any well-formed name is taken.
    package let icons: Set<String>

    /// What changed in the registry, once it is stored.
    package enum RegistryChange: Sendable {
        case button(ButtonDefinition)
        /// The id, and the group it was in (who may hear of it).
        case buttonDeleted(String, group: String?)
        case sheet(SheetDefinition)
        case sheetDeleted(String, group: String?)
    }

    /// Calls `observer` after every stored change (MQTT discovery follows the registry).
    package func onChange(_ observer: @escaping @Sendable (RegistryChange) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    private func changed(_ change: RegistryChange) {
        for observer in observers.withLock({ $0 }) { observer(change) }
    }

    package init(store: ButtonStore, maxButtons: Int, icons: Set<String> = []) {
        self.store = store
        self.maxButtons = maxButtons
        self.icons = icons
        buttons = SlotTable(limit: maxButtons)
    }

    package static func storageError(_ error: any Error) -> ButtonsError {
        if let error = error as? StoreError, error.busy { return ButtonsError.unavailable(error.description, retryAfter: 1) }
        return ButtonsError.unavailable(
            "storage failed: \(error) (`buttond check` tells whether the database is damaged)", retryAfter: 1)
    }

    // MARK: Buttons and sheets, one path

    package func button(_ id: String) throws(ButtonsError) -> ButtonSlot { try buttons.get(id) }
    package var buttonCount: Int { buttons.count }
    package func buttonSlots(offset: Int = 0, limit: Int = .max) -> [ButtonSlot] { buttons.list(offset: offset, limit: limit) }
    package func createButton(_ definition: ButtonDefinition) throws(ButtonsError) -> ButtonSlot { try create(definition, in: buttons) }
    package func saveDefinition(_ definition: ButtonDefinition) throws(ButtonsError) { try save(definition, as: ButtonSlot.self) }
    package func deleteButton(_ id: String) throws(ButtonsError) { try delete(id, from: buttons) }

    package func sheet(_ id: String) throws(ButtonsError) -> SheetSlot { try sheets.get(id) }
    package var sheetSlots: [SheetSlot] { sheets.list() }
    package func createSheet(_ definition: SheetDefinition) throws(ButtonsError) -> SheetSlot { try create(definition, in: sheets) }
    package func saveSheet(_ definition: SheetDefinition) throws(ButtonsError) { try save(definition, as: SheetSlot.self) }
    package func deleteSheet(_ id: String) throws(ButtonsError) { try delete(id, from: sheets) }

    /// Notes that a change of definition disabled button `id`: what is under way on it is to end.
    package func disabled(_ id: String) { justDisabled.withLock { $0.append(id) } }

    /// The buttons disabled since the last call.
    func takeDisabled() -> [String] {
        justDisabled.withLock { ids in
            defer { ids = [] }
            return ids
        }
    }

    /// Adds a loaded slot to memory (at start); false if the id is taken.
    package func insert(_ slot: ButtonSlot) -> Bool { (try? buttons.insert(slot)) != nil }
    package func insert(_ slot: SheetSlot) -> Bool { (try? sheets.insert(slot)) != nil }

    private func create<Slot: RegistrySlot>(_ definition: Slot.Definition, in table: SlotTable<Slot>) throws(ButtonsError) -> Slot {
        let slot = Slot(definition: definition)
        try table.insert(slot)
        do {
            try save(definition, as: Slot.self)
        } catch {
            table.remove(slot.id)
            throw error
        }
        return slot
    }

    private func save<Slot: RegistrySlot>(_ definition: Slot.Definition, as _: Slot.Type) throws(ButtonsError) {
        do throws(StoreError) { try Slot.upsert(definition, in: store) } catch { throw Self.storageError(error) }
        changed(Slot.stored(definition))
    }

    private func delete<Slot: RegistrySlot>(_ id: String, from table: SlotTable<Slot>) throws(ButtonsError) {
        let slot = try table.get(id)
        let group = try slot.locked { () throws(ButtonsError) in
            do throws(StoreError) { try Slot.delete(id, in: store) } catch { throw Self.storageError(error) }
            slot.removed = true
            return slot.definition.group
        }
        table.remove(id)
        changed(Slot.deleted(id, group: group))
    }

    /// Makes memory hold exactly these definitions (after the store committed the same set):
    /// buttons that stay keep their live state, the others are removed.
    package func replaceAll(buttons newButtons: [ButtonDefinition], sheets newSheets: [SheetDefinition]) {
        for definition in newButtons where !definition.config.enabled {
            guard let slot = try? buttons.get(definition.id), slot.locked({ slot.definition.config.enabled }) else { continue }
            disabled(definition.id)
        }
        let goneButtons = buttons.replace(with: newButtons)
        let goneSheets = sheets.replace(with: newSheets)
        for (id, group) in goneButtons { changed(.buttonDeleted(id, group: group)) }
        for (id, group) in goneSheets { changed(.sheetDeleted(id, group: group)) }
        for definition in newButtons { changed(.button(definition)) }
        for definition in newSheets { changed(.sheet(definition)) }
    }
}
