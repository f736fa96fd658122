import ButtonEngine
import ButtonStore
import Buttons
import JSON

/// Buttons and sheets as the API and the stream show them: the definition and live state,
/// plus the health of the handlers behind a key (a handler's own view, with what the reader
/// may see of it, is the API's). Also announces every change on the event stream
/// (`event: registry`), so open panels follow without a reload.
package struct RegistryViews: Sendable {
    package let registry: Registry
    package let handlers: HandlerRegistry
    package let health: HandlerHealth
    package let publisher: StreamPublisher

    package init(registry: Registry, handlers: HandlerRegistry, health: HandlerHealth, publisher: StreamPublisher) {
        self.registry = registry
        self.handlers = handlers
        self.health = health
        self.publisher = publisher
    }

    /// A button with its state and, when one of its handlers is failing or disabled, `health`.
    /// `definition`, when given, is newer than the slot's (a change being made).
    package func button(_ slot: ButtonSlot, definition newer: ButtonDefinition? = nil) -> JSONValue {
        let json = slot.locked { (newer ?? slot.definition).json(state: slot.machine.state) }
        return withHealth(json, owner: .button(slot.id))
    }

    package func sheet(_ slot: SheetSlot, definition newer: SheetDefinition? = nil) -> JSONValue {
        let json = slot.locked { (newer ?? slot.definition).json(open: slot.machine.isOpen) }
        return withHealth(json, owner: .sheet(slot.id))
    }

    private func withHealth(_ json: JSONValue, owner: Source) -> JSONValue {
        let reasons = handlers.disabledReasons(owner: owner)
        let list = handlers.list(owner: owner).map { (id: $0.id, health: health.json($0, disabledReason: reasons[$0.id])) }
        guard let worst = HandlerHealth.worst(list), case .object(var object) = json else { return json }
        object["health"] = worst
        return .object(object)
    }

    /// `event: registry` for a stored change. A stream limited to groups hears of a button or
    /// sheet in its groups only: one moved out of them is a delete there, one moved in a put.
    package func announce(_ change: Registry.RegistryChange) {
        let (kind, id, group, body): (String, String, String?, JSONValue?)
        // `before`: the group a changed one was in (the slot still holds the old definition
        // while its change is announced).
        var before: String?
        switch change {
        case .button(let definition):
            guard let slot = try? registry.button(definition.id) else { return }
            (kind, id, group, body) = ("button", definition.id, definition.group, button(slot, definition: definition))
            before = slot.locked { slot.definition.group }
        case .sheet(let definition):
            guard let slot = try? registry.sheet(definition.id) else { return }
            (kind, id, group, body) = ("sheet", definition.id, definition.group, sheet(slot, definition: definition))
            before = slot.locked { slot.definition.group }
        case .buttonDeleted(let deleted, let was): (kind, id, group, body) = ("button", deleted, was, nil)
        case .sheetDeleted(let deleted, let was): (kind, id, group, body) = ("sheet", deleted, was, nil)
        }
        let delete: JSONValue = ["op": "delete", "kind": .string(kind), "id": .string(id)]
        guard let body else {
            publisher.announce("registry", data: JSONWriter.encode(delete), source: id) { sees in sees(group) }
            return
        }
        var put: [String: JSONValue] = ["op": "put", "kind": .string(kind), "id": .string(id)]
        put[kind] = body
        publisher.announce("registry", data: JSONWriter.encode(.object(put)), source: id) { sees in sees(group) }
        if let before, before != group {
            publisher.announce("registry", data: JSONWriter.encode(delete), source: id, everyone: false) { sees in
                sees(before) && !sees(group)
            }
        }
    }

    /// A handler's health changed: its button or sheet is announced again.
    package func announce(owner: Source) {
        switch owner {
        case .button(let id):
            if let slot = try? registry.button(id) { announce(.button(slot.locked { slot.definition })) }
        case .sheet(let id):
            if let slot = try? registry.sheet(id) { announce(.sheet(slot.locked { slot.definition })) }
        }
    }
}
