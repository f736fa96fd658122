import ButtonEngine
import ButtonStore
import JSON

/// One request's worth of input, as the sequencer applies it.
package enum Command: Sendable {
    /// One input for one button.
    case input(button: String, Input)
    /// A down, `holdMs` of holding, and the up.
    case press(button: String, down: Input, holdMs: Int64)
    /// Inputs for any buttons: all or nothing, events in input order.
    case batch([BatchItem])
    /// A toggle's face set directly.
    case face(button: String, face: Int)
    /// Back to rest at the server clock (`POST /buttons/{id}/reset`).
    case reset(button: String)
    /// Ends what is under way on a button its definition just disabled (SPEC §4 "Guards").
    case disable(button: String)
    case sheet(String, SheetAction, t: Int64?)

    package struct BatchItem: Sendable {
        package var button: String
        package var input: Input

        package init(button: String, input: Input) {
            self.button = button
            self.input = input
        }
    }

    package enum SheetAction: Sendable {
        case open, cancel
        case choose(JSONValue)
    }

    /// Whether a full delivery queue refuses it (503). Ending what a disable cut short is
    /// not refused, as a timer's events are not: the change that caused it was accepted.
    var mayWaitForQueue: Bool {
        if case .disable = self { return false }
        return true
    }
}

extension Sequencer {
    package static func conflict(_ error: InputError, index: Int? = nil) -> ButtonsError {
        var http = ButtonsError.conflict(error.code, error.message)
        if let index { http.details["index"] = .int(Int64(index)) }
        return http
    }

    /// Lookups run on the sequencer thread, as deletions do: a deleted slot is never found.
    private func button(_ id: String) throws(ButtonsError) -> ButtonSlot { try registry.button(id) }

    /// What a command did to the batch's machines, not yet kept.
    private struct Applied {
        var buttons: [(ButtonSlot, ButtonMachine)] = []
        var sheet: (SheetSlot, SheetMachine)?
        /// The gestures it made, in order, as the engine gave them: each run with its source.
        var gestures: [(source: Source, gestures: [GestureEvent])] = []
    }

    /// Applies `command` to the batch's machines. Refused (unknown button, engine error,
    /// full delivery queue): the batch unchanged, answered now, or once the batch under this
    /// one is committed. Accepted: answered when the batch is committed, with its own events.
    func apply(_ command: Command, by sender: String? = nil, reply: @escaping Reply, to batch: inout Batch) {
        let now = clock.now()
        let mark = batch.events.count
        batch.submitted.append(Batch.Submitted(command: command, sender: sender, reply: reply))
        do throws(ButtonsError) {
            try checkFuture(command, now: now)
            let applied = try machines(after: command, in: batch, now: now)
            for run in applied.gestures { batch.append(run.gestures, of: run.source, idPrefix: log.idPrefix, by: sender) }
            let range = mark..<batch.events.count
            let rows = range.isEmpty ? [] : handlers.deliveries(for: batch.events[range], now: now)
            if !rows.isEmpty && command.mayWaitForQueue
                && dispatcher.depth + batch.deliveriesUnder + batch.deliveries.count + rows.count > maxQueue
            {
                batch.dropEvents(after: mark)
                throw ButtonsError.unavailable(
                    "the delivery queue is full (\(dispatcher.depth) deliveries waiting); try again shortly", retryAfter: 5)
            }
            for (slot, machine) in applied.buttons {
                batch.keep(machine, of: slot)
                arm(slot, machine)
                senders[slot.id] = sender
            }
            if let (slot, machine) = applied.sheet {
                batch.keep(machine, of: slot)
                arm(slot, machine)
            }
            batch.deliveries += rows
            batch.answers.append(Batch.Answer(events: range, reply: reply))
        } catch {
            if refusalsWait {
                batch.refusals.append(Batch.Refusal(error: error, reply: reply))
            } else {
                reply(.failure(error))
            }
        }
    }

    /// The machines `command` changes, as they are after it, and the gestures it made.
    private func machines(after command: Command, in batch: Batch, now: Int64) throws(ButtonsError) -> Applied {
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
            guard try button(id).definition.config.kind == .toggle else {
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
            let slot = try registry.sheet(id)
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
        let slot = try button(id)
        var machine = batch.machine(of: slot)
        do throws(InputError) {
            let gestures = try change(&machine)
            return Applied(buttons: [(slot, machine)], gestures: [(.button(id), gestures)])
        } catch {
            throw Self.conflict(error)
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
                    let slot = try button(item.button)
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
                throw Self.conflict(error, index: index)
            }
        }
        applied.buttons = order.map { machines[$0]! }
        return applied
    }

    /// A `t` too far ahead of the server clock would push the button's clock there, and
    /// every live input after it would be `out_of_order`: refused (SPEC §3).
    private func checkFuture(_ command: Command, now: Int64) throws(ButtonsError) {
        func check(_ t: Int64?, index: Int? = nil) throws(ButtonsError) {
            guard let t, t > now &+ maxFutureMs, now &+ maxFutureMs > now else { return }
            var details: [String: JSONValue] = ["field": .string(index.map { "[\($0)].t" } ?? "t")]
            if let index { details["index"] = .int(Int64(index)) }
            throw ButtonsError(
                .invalid, code: "t_in_future",
                message: "t is \(t - now) ms ahead of the server clock; at most \(maxFutureMs) ms (--max-future-ms) is taken",
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
