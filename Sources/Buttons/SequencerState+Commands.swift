import ButtonEngine
import ButtonStore
import JSON

/// How a turn applies each kind of command to the batch's machines.
extension SequencerState {
    /// What a command did to the batch's machines, not yet kept.
    struct Applied {
        var buttons: [(ButtonSlot, ButtonMachine)] = []
        var sheet: (SheetSlot, SheetMachine)?
        /// The gestures it made, in order, as the engine gave them: each run with its source.
        var gestures: [(source: Source, gestures: [GestureEvent])] = []
    }

    /// The machines `command` changes, as they are after it, and the gestures it made.
    func machines(after command: Command, in batch: Batch, now: Int64) throws(ButtonsError) -> Applied {
        switch command {
        case .reset(let id):
            return try oneButton(id, in: batch) { machine in machine.reset(now: now) }
        case .disable(let id):
            return try oneButton(id, in: batch) { machine in machine.setEnabled(false, now: now) }
        case .input(let id, let input):
            return try oneButton(id, in: batch) { machine throws(InputError) in try machine.apply(input, now: now) }
        case .press(let id, let down, let holdMs):
            return try oneButton(id, in: batch) { machine throws(InputError) in try machine.press(down, holdMs: holdMs, now: now) }
        case .face(let id, let face):
            guard try environment.button(id).definition.config.kind == .toggle else {
                throw ButtonsError.conflict("not_toggle", "button '\(id)' is a push button; only toggles have faces")
            }
            return try oneButton(id, in: batch) { machine throws(InputError) in
                // setFace takes no input, so it does not refuse a disabled button itself.
                guard machine.config.enabled else { throw .disabled }
                return machine.setFace(face, now: now)
            }
        case .batch(let items):
            return try inputs(items, in: batch, now: now)
        case .sheet(let id, let action, let t):
            let slot = try environment.sheet(id)
            var machine = batch.machine(of: slot)
            let t = t ?? now
            let produced: [GestureEvent]
            switch action {
            case .open: produced = machine.open(t: t)
            case .cancel: produced = machine.cancel(t: t)
            case .choose(let option): produced = try Self.choose(option, on: &machine, t: t, sheet: id)
            }
            return Applied(sheet: (slot, machine), gestures: [(.sheet(id), produced)])
        }
    }

    /// One button's machine changed by `change`; an engine refusal is a 409.
    private func oneButton(
        _ id: String, in batch: Batch, _ change: (inout ButtonMachine) throws(InputError) -> [GestureEvent]
    ) throws(ButtonsError) -> Applied {
        let slot = try environment.button(id)
        var machine = batch.machine(of: slot)
        do throws(InputError) {
            let gestures = try change(&machine)
            return Applied(buttons: [(slot, machine)], gestures: [(.button(id), gestures)])
        } catch {
            throw Sequencer.conflict(error)
        }
    }

    /// A batch of inputs, in order, over any buttons: all or none (a refusal names its index).
    private func inputs(_ items: [Command.BatchItem], in batch: Batch, now: Int64) throws(ButtonsError) -> Applied {
        var machines: [String: (slot: ButtonSlot, machine: ButtonMachine)] = [:]
        var order: [String] = []
        var applied = Applied()
        for (index, item) in items.enumerated() {
            if machines[item.button] == nil {
                do throws(ButtonsError) {
                    let slot = try environment.button(item.button)
                    machines[item.button] = (slot, batch.machine(of: slot))
                    order.append(item.button)
                } catch {
                    var error = error
                    error.details["index"] = .int(Int64(index))
                    throw error
                }
            }
            do throws(InputError) {
                applied.gestures.append((.button(item.button), try machines[item.button]!.machine.apply(item.input, now: now)))
            } catch {
                throw Sequencer.conflict(error, index: index)
            }
        }
        applied.buttons = order.map { machines[$0]! }
        return applied
    }

    /// A `t` too far ahead of the server clock would push the button's clock there, and
    /// every live input after it would be `out_of_order`: refused (SPEC §3).
    func checkFuture(_ command: Command, now: Int64) throws(ButtonsError) {
        func check(_ t: Int64?, index: Int? = nil) throws(ButtonsError) {
            guard let t, t > now &+ environment.maxFutureMs, now &+ environment.maxFutureMs > now else { return }
            var details: [String: JSONValue] = ["field": .string(index.map { "[\($0)].t" } ?? "t")]
            if let index { details["index"] = .int(Int64(index)) }
            throw ButtonsError(
                .invalid, code: "t_in_future",
                message: "t is \(t - now) ms ahead of the server clock; at most \(environment.maxFutureMs) ms (--max-future-ms) is taken",
                details: details)
        }
        switch command {
        case .input(_, let input): try check(input.t)
        case .press(_, let down, _): try check(down.t)
        case .batch(let items): for (index, item) in items.enumerated() { try check(item.input.t, index: index) }
        case .sheet(_, _, let t): try check(t)
        case .face, .reset, .disable: break
        }
    }

    private static func choose(
        _ option: JSONValue, on machine: inout SheetMachine, t: Int64, sheet id: String
    ) throws(ButtonsError) -> [GestureEvent] {
        do {
            switch option {
            case .string(let name): return try machine.choose(option: name, t: t)
            case .int(let index): return try machine.choose(index: Int(clamping: index), t: t)
            default: throw ButtonsError.badRequest("option must be an option id or an index", field: "option")
            }
        } catch let error as ButtonsError {
            throw error
        } catch {
            throw ButtonsError.invalid("option", "sheet '\(id)' has no option \(String(decoding: JSONWriter.encode(option), as: UTF8.self))")
        }
    }
}
