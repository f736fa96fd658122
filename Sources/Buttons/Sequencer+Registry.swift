import ButtonEngine
import ButtonStore
import JSON

/// Loading the registry at start, and the changes of definitions that run between batches.
extension Sequencer {
    /// Loads buttons and sheets from the store (before `start`). A button that was held when
    /// the server stopped comes back released, its interrupted tap series ended, with those
    /// events in the log (`ButtonMachine.restored`); an armed one keeps its window, and its
    /// disarm timer is armed.
    package func load() throws {
        var batch = Batch(firstSeq: log.nextSeq)
        var released: [ButtonStateChange] = []
        let now = clock.now()
        for stored in try registry.store.loadButtons() {
            let definition = try Self.definition(in: "buttons", id: stored.id, config: stored.config) { json throws(ButtonsError) in
                try ButtonDefinition.create(from: json, icons: registry.icons)
            }
            let restored = ButtonMachine.restored(
                config: definition.config, face: stored.face, clock: stored.clock, held: stored.held,
                tapCount: stored.tapCount, armedUntil: stored.armedUntil, now: now)
            let slot = ButtonSlot(definition: definition, machine: restored.machine)
            _ = registry.insert(slot)
            state.arm(slot, restored.machine)
            guard !restored.events.isEmpty else { continue }
            let events = batch.append(restored.events, of: .button(stored.id), idPrefix: log.idPrefix)
            batch.deliveries += handlers.deliveries(for: batch.events[events], now: now)
            released.append(
                ButtonStateChange(
                    id: stored.id, face: restored.machine.state.face, clock: restored.clock, held: false,
                    armedUntil: restored.machine.state.armedUntil))
        }
        for stored in try registry.store.loadSheets() {
            let definition = try Self.definition(in: "sheets", id: stored.id, config: stored.config, SheetDefinition.create)
            _ = registry.insert(SheetSlot(definition: definition))
        }
        if !batch.events.isEmpty {
            try log.write(batch.events, states: released, deliveries: batch.deliveries)
            dispatcher.added(batch.deliveries)
            publisher.publish(batch.events)
        }
    }

    /// A stored row's definition; what is wrong with it names the table, the row and the
    /// column (`buttons row 'door': malformed JSON at byte 0 of config: …`), so the damaged
    /// row can be found.
    private static func definition<Definition>(
        in table: String, id: String, config: String, _ create: (JSONValue) throws(ButtonsError) -> Definition
    ) throws(StoreError) -> Definition {
        let row = "\(table) row '\(id)'"
        do {
            return try create(try JSONParser.parse(Array(config.utf8)))
        } catch let error as JSONParser.Failure {
            throw StoreError("\(row): malformed JSON at byte \(error.offset) of config: \(error.message)")
        } catch let error as ButtonsError {
            throw StoreError("\(row): config: \(error.message)")
        } catch {
            throw StoreError("\(row): config: \(error)")
        }
    }

    /// Changes a button's definition; the engine takes the new timings from the next timer on.
    /// Disabling ends what is under way (`Command.disable`, applied right after this job, so no
    /// input or timer comes between); the answer waits for those events to be committed, so
    /// the state it shows is the one they leave.
    package func update(_ id: String, with json: JSONValue) throws(ButtonsError) -> JSONValue {
        let (view, disabled) = try exclusive { [registry, clock] () throws(ButtonsError) in
            // A deleted slot has left the registry in the same exclusive job that removed it.
            let slot = try registry.button(id)
            let definition = try slot.definition.patched(with: json, icons: registry.icons)
            try registry.saveDefinition(definition)
            return slot.locked { () -> (JSONValue, Bool) in
                let disabling = slot.machine.config.enabled && !definition.config.enabled
                slot.definition = definition
                slot.machine.config = definition.config
                if definition.config.kind == .push && slot.machine.state.face != 0 {
                    _ = slot.machine.setFace(0, now: slot.machine.clock ?? clock.now())
                }
                if disabling { registry.disabled(id) }
                return (definition.json(state: slot.machine.state), disabling)
            }
        }
        guard disabled else { return view }
        // An exclusive job runs once everything applied before it is committed: the disable's events too.
        return try exclusive { [registry] () throws(ButtonsError) in
            let slot = try registry.button(id)
            return slot.locked { slot.definition.json(state: slot.machine.state) }
        }
    }

    /// What ends what is under way on every button an exclusive job disabled (a PATCH, a
    /// config import): applied in the turn right after the job, their events are logged,
    /// published and delivered like any.
    func endDisabled() -> [SequencerState.Submission] {
        registry.takeDisabled().map { id in SequencerState.Submission(.disable(button: id), reply: { _ in }) }
    }

    /// Changes a sheet's definition (title, options, its timeout from its next open on).
    package func updateSheet(_ id: String, with json: JSONValue) throws(ButtonsError) -> JSONValue {
        try exclusive { [registry] () throws(ButtonsError) in
            let slot = try registry.sheet(id)
            let definition = try slot.definition.patched(with: json)
            try registry.saveSheet(definition)
            return slot.locked {
                slot.adopt(definition)
                return definition.json(open: slot.machine.isOpen)
            }
        }
    }
}

/// A definition that a JSON merge patch can change.
protocol Patchable {
    mutating func patch(with json: JSONValue) throws(ButtonsError)
}

extension Patchable {
    /// A copy with `json` applied; `self` is left as it is if the patch is refused.
    func patched(with json: JSONValue) throws(ButtonsError) -> Self {
        var copy = self
        try copy.patch(with: json)
        return copy
    }
}

extension SheetDefinition: Patchable {}
