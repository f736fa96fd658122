import ButtonEngine
import ButtonStore
import Buttons
import JSON

/// A sheet's retained state (SPEC §9): `{"open", "option", "label"}` on `…/sheet/<id>/state`,
/// so Home Assistant's select shows the last choice wherever it was made, after a restart of
/// Home Assistant or of buttond too.
extension MQTTBridge {
    /// Publishes the state; `option` was just chosen. `definition`, when given, is newer than
    /// the slot's (a change not yet in the slot: new labels).
    func publishSheetState(_ slot: SheetSlot, choosing option: String? = nil, definition newer: SheetDefinition? = nil) {
        let (current, open) = slot.locked { (slot.definition, slot.machine.isOpen) }
        let definition = newer ?? current
        if option == nil && sheetChoices.withLock({ $0[slot.id] == nil }) {
            // Read outside the lock, once per sheet: a restart forgot the choice, the history did not.
            let remembered = lastChoice(of: slot.id)
            sheetChoices.withLock { choices in
                if choices[slot.id] == nil { choices[slot.id] = .some(remembered) }
            }
        }
        let chosen = sheetChoices.withLock { choices -> String? in
            if let option { choices[slot.id] = .some(option) }
            return choices[slot.id] ?? nil
        }
        let label = chosen.map { id in definition.options.first { $0.id == id }?.label ?? id }
        let payload: JSONValue = [
            "open": .bool(open), "option": chosen.map(JSONValue.string) ?? .null, "label": label.map(JSONValue.string) ?? .null,
        ]
        client.send(.init(topic: "\(base)/sheet/\(slot.id)/state", payload: JSONWriter.encode(payload), qos: 1, retain: true))
    }

    /// The option of the sheet's newest `select` in the history, if any.
    private func lastChoice(of sheet: String) -> String? {
        guard let events = try? registry.store.latestEvents(limit: 1000, button: sheet) else { return nil }
        for event in events.reversed() where event.type == EventType.select.rawValue && event.sheet == sheet {
            guard let json = try? JSONParser.parse(event.json), case .string(let option)? = json["data"]?["option"] else { continue }
            return option
        }
        return nil
    }
}
