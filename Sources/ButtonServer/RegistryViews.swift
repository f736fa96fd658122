import Handlers
import ButtonEngine
import ButtonStore
import Buttons
import JSON

/// Buttons, sheets and handlers as the API and the stream show them: the definition and live
/// state, plus the health of the handlers behind a key. Also announces every change on the
/// event stream (`event: registry`), so open panels follow without a reload.
struct RegistryViews: Sendable {
    let registry: Registry
    let handlers: HandlerRegistry
    let health: HandlerHealth
    let publisher: StreamPublisher

    /// A button with its state and, when one of its handlers is failing or disabled, `health`.
    /// `definition`, when given, is newer than the slot's (a change being made).
    func button(_ slot: ButtonSlot, definition newer: ButtonDefinition? = nil) -> JSONValue {
        let json = slot.locked { (newer ?? slot.definition).json(state: slot.machine.state) }
        return withHealth(json, owner: .button(slot.id))
    }

    func sheet(_ slot: SheetSlot, definition newer: SheetDefinition? = nil) -> JSONValue {
        let json = slot.locked { (newer ?? slot.definition).json(open: slot.machine.isOpen) }
        return withHealth(json, owner: .sheet(slot.id))
    }

    func handler(_ handler: Handler, for viewer: Viewer = .admin) -> JSONValue {
        guard case .object(var object) = handler.json(for: viewer) else { return .null }
        object["health"] = health.json(handler, disabledReason: handlers.disabledReasons(owner: handler.owner)[handler.id])
        return .object(object)
    }

    private func withHealth(_ json: JSONValue, owner: Source) -> JSONValue {
        let reasons = handlers.disabledReasons(owner: owner)
        let list = handlers.list(owner: owner).map { (id: $0.id, health: health.json($0, disabledReason: reasons[$0.id])) }
        guard let worst = HandlerHealth.worst(list), case .object(var object) = json else { return json }
        object["health"] = worst
        return .object(object)
    }

    /// `event: registry` for a stored change.
    func announce(_ change: Registry.RegistryChange) {
        let message: JSONValue
        switch change {
        case .button(let definition):
            guard let slot = try? registry.button(definition.id) else { return }
            message = ["op": "put", "kind": "button", "id": .string(definition.id), "button": button(slot, definition: definition)]
        case .sheet(let definition):
            guard let slot = try? registry.sheet(definition.id) else { return }
            message = ["op": "put", "kind": "sheet", "id": .string(definition.id), "sheet": sheet(slot, definition: definition)]
        case .buttonDeleted(let id): message = ["op": "delete", "kind": "button", "id": .string(id)]
        case .sheetDeleted(let id): message = ["op": "delete", "kind": "sheet", "id": .string(id)]
        }
        guard case .string(let id)? = message["id"] else { return }
        publisher.announce("registry", data: JSONWriter.encode(message), source: id)
    }

    /// A handler's health changed: its button or sheet is announced again.
    func announce(owner: Source) {
        switch owner {
        case .button(let id):
            if let slot = try? registry.button(id) { announce(.button(slot.locked { slot.definition })) }
        case .sheet(let id):
            if let slot = try? registry.sheet(id) { announce(.sheet(slot.locked { slot.definition })) }
        }
    }
}
