import ButtonEngine
import ButtonStore
import FoundationEssentials
import Glibc
import Dispatch
import MicroHTTP

/// Applies input to buttons and sheets: runs the engine on a copy of each machine, commits
/// the events durably, and only then keeps the new machine and re-arms its real-time timer.
final class ButtonService: Sendable {
    let registry: Registry
    let log: EventLog
    private let scheduler: TimerScheduler

    init(registry: Registry, log: EventLog) {
        self.registry = registry
        self.log = log
        let fire = FireBox()
        self.scheduler = TimerScheduler { slot in fire.service?.fireTimers(slot) }
        fire.service = self
    }

    /// Breaks the init cycle between the service and its scheduler's callback.
    private final class FireBox: @unchecked Sendable {  // written once in init, before the scheduler starts
        weak var service: ButtonService?
    }

    func start() { scheduler.start() }
    func stop() { scheduler.stop() }

    static func conflict(_ error: InputError, index: Int? = nil) -> HTTPError {
        var http = HTTPError(409, code: error.code, message: error.message)
        if let index { http.details["index"] = .int(Int64(index)) }
        return http
    }

    private static func state(_ slot: ButtonSlot, _ machine: ButtonMachine) -> ButtonStateChange {
        let state = machine.state
        return ButtonStateChange(id: slot.id, face: state.face, clock: machine.clock, held: state.held, tapCount: state.tapCount)
    }

    /// Re-arms the slot's timer at its next deadline, mapped to the server clock. Slot lock held.
    private func arm(_ slot: ButtonSlot) {
        guard !slot.removed, let deadline = slot.machine.nextDeadline else { return }
        scheduler.schedule(slot, at: deadline - slot.machine.clockOffset)
    }

    /// Inputs for one button, applied in order (a `press` is a down and an up).
    func apply(_ inputs: [Input], to id: String, holdMs: Int64? = nil) throws(HTTPError) -> [ControlEvent] {
        let slot = try registry.button(id)
        return try slot.locked { () throws(HTTPError) in
            guard !slot.removed else { throw HTTPError.notFound("no button named '\(id)'") }
            var machine = slot.machine
            let now = Timestamp.now()
            var gestures: [GestureEvent] = []
            do throws(InputError) {
                for input in inputs { gestures += try machine.apply(input, now: now) }
                if let holdMs, let downT = machine.lastInputT {
                    // The timers of the hold fire first; a hold past maxHoldMs ends in the
                    // max-hold cancel, and then there is no up to apply.
                    gestures += machine.advance(to: downT + holdMs)
                    if machine.state.held {
                        gestures += try machine.apply(Input(.up, t: downT + holdMs), now: now + holdMs)
                    }
                }
            } catch {
                throw Self.conflict(error)
            }
            let events = try log.commit(gestures.map { ($0, .button(id)) }, states: [Self.state(slot, machine)])
            slot.machine = machine
            arm(slot)
            return events
        }
    }

    /// A batch for any buttons: all or nothing, events in input order.
    func applyBatch(_ batch: [(button: String, input: Input)]) throws(HTTPError) -> [ControlEvent] {
        var slots: [String: ButtonSlot] = [:]
        for (index, item) in batch.enumerated() where slots[item.button] == nil {
            do throws(HTTPError) {
                slots[item.button] = try registry.button(item.button)
            } catch {
                var error = error
                error.details["index"] = .int(Int64(index))
                throw error
            }
        }
        let ordered = slots.keys.sorted().map { slots[$0]! }
        for slot in ordered { slot.lock.lock() }
        defer { for slot in ordered.reversed() { slot.lock.unlock() } }
        var machines: [String: ButtonMachine] = [:]
        for slot in ordered {
            guard !slot.removed else { throw HTTPError.notFound("no button named '\(slot.id)'") }
            machines[slot.id] = slot.machine
        }
        let now = Timestamp.now()
        var gestures: [(GestureEvent, ControlEvent.Source)] = []
        for (index, item) in batch.enumerated() {
            do throws(InputError) {
                let produced = try machines[item.button]!.apply(item.input, now: now)
                for gesture in produced { gestures.append((gesture, .button(item.button))) }
            } catch {
                throw Self.conflict(error, index: index)
            }
        }
        let states = ordered.map { Self.state($0, machines[$0.id]!) }
        let events = try log.commit(gestures, states: states)
        for slot in ordered {
            slot.machine = machines[slot.id]!
            arm(slot)
        }
        return events
    }

    func setFace(_ face: Int, of id: String) throws(HTTPError) -> [ControlEvent] {
        let slot = try registry.button(id)
        return try slot.locked { () throws(HTTPError) in
            guard !slot.removed else { throw HTTPError.notFound("no button named '\(id)'") }
            guard slot.definition.config.kind == .toggle else {
                throw HTTPError.conflict("not_toggle", "button '\(id)' is a push button; only toggles have faces")
            }
            var machine = slot.machine
            let gestures = machine.setFace(face, now: Timestamp.now())
            let events = try log.commit(gestures.map { ($0, .button(id)) }, states: [Self.state(slot, machine)])
            slot.machine = machine
            return events
        }
    }

    /// Changes a button's definition; the engine takes the new timings from the next timer on.
    func update(_ id: String, with json: JSONValue) throws(HTTPError) -> JSONValue {
        let slot = try registry.button(id)
        return try slot.locked { () throws(HTTPError) in
            guard !slot.removed else { throw HTTPError.notFound("no button named '\(id)'") }
            var definition = slot.definition
            try definition.patch(with: json)
            try registry.saveDefinition(definition)
            slot.definition = definition
            slot.machine.config = definition.config
            if definition.config.kind == .push && slot.machine.state.face != 0 {
                _ = slot.machine.setFace(0, now: slot.machine.clock ?? Timestamp.now())
            }
            return definition.json(state: slot.machine.state)
        }
    }

    /// The scheduler's callback: fires what is due, commits it, re-arms.
    func fireTimers(_ slot: ButtonSlot) {
        slot.locked {
            slot.scheduledAt = nil
            guard !slot.removed else { return }
            var machine = slot.machine
            let gestures = machine.fireDue(now: Timestamp.now())
            if !gestures.isEmpty {
                do {
                    _ = try log.commit(gestures.map { ($0, .button(slot.id)) }, states: [Self.state(slot, machine)])
                } catch {
                    // Storage refused: keep the old state and try again shortly.
                    scheduler.schedule(slot, at: Timestamp.now() + 100)
                    return
                }
            }
            slot.machine = machine
            arm(slot)
        }
    }

    // MARK: Sheets

    enum SheetAction {
        case open, cancel
        case choose(JSONValue)
    }

    func sheet(_ id: String, _ action: SheetAction, t: Int64?) throws(HTTPError) -> [ControlEvent] {
        let slot = try registry.sheet(id)
        return try slot.locked { () throws(HTTPError) in
            guard !slot.removed else { throw HTTPError.notFound("no sheet named '\(id)'") }
            var machine = slot.machine
            let t = t ?? Timestamp.now()
            let gestures: [GestureEvent]
            switch action {
            case .open: gestures = machine.open(t: t)
            case .cancel: gestures = machine.cancel(t: t)
            case .choose(let option): gestures = try Self.choose(option, on: &machine, t: t, sheet: id)
            }
            let events = try log.commit(gestures.map { ($0, .sheet(id)) }, states: [])
            slot.machine = machine
            return events
        }
    }

    private static func choose(
        _ option: JSONValue, on machine: inout SheetMachine, t: Int64, sheet id: String
    ) throws(HTTPError) -> [GestureEvent] {
        do {
            switch option {
            case .string(let name): return try machine.choose(option: name, t: t)
            case .int(let index): return try machine.choose(index: Int(clamping: index), t: t)
            default: throw HTTPError.badRequest("option must be an option id or an index", field: "option")
            }
        } catch let error as HTTPError {
            throw error
        } catch {
            throw HTTPError.invalid("option", "sheet '\(id)' has no option \(String(decoding: JSONWriter.encode(option), as: UTF8.self))")
        }
    }

    // MARK: Start-up

    /// Loads the registry from the store. A button that was held when the server stopped comes
    /// back released, with a `touch-cancel` (`reason: "restart"`) in the log.
    func load() throws {
        var released: [(GestureEvent, ControlEvent.Source)] = []
        var states: [ButtonStateChange] = []
        let now = Timestamp.now()
        for stored in try registry.store.loadButtons() {
            let json = try JSONParser.parse(Array(stored.config.utf8))
            let definition = try ButtonDefinition.create(from: json)
            let face = definition.config.kind == .toggle ? stored.face : 0
            let machine = ButtonMachine(config: definition.config, face: face, clock: stored.clock, lastInputT: stored.clock)
            if stored.held || stored.tapCount > 0 {
                // The series the stop interrupted ends with its n-tap, before the restart cancel.
                let t = max(now, stored.clock ?? now)
                if stored.tapCount > 0 {
                    let taps = min(stored.tapCount, EventType.maxTapCount)
                    released.append((GestureEvent(EventType.nTap(taps), t: t, data: EventData(tapCount: taps)), .button(stored.id)))
                }
                if stored.held {
                    released.append((GestureEvent(.touchCancel, t: t, data: EventData(reason: "restart")), .button(stored.id)))
                }
                states.append(ButtonStateChange(id: stored.id, face: face, clock: t, held: false))
            }
            _ = registry.insert(ButtonSlot(definition: definition, machine: machine))
        }
        for stored in try registry.store.loadSheets() {
            let json = try JSONParser.parse(Array(stored.config.utf8))
            _ = registry.insert(SheetSlot(definition: try SheetDefinition.create(from: json)))
        }
        if !released.isEmpty { _ = try log.commit(released, states: states) }
    }
}
