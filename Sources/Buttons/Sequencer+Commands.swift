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
}

extension Sequencer {
    package static func conflict(_ error: InputError, index: Int? = nil) -> ButtonsError {
        var http = ButtonsError.conflict(error.code, error.message)
        if let index { http.details["index"] = .int(Int64(index)) }
        return http
    }

    /// Lookups run on the sequencer thread, as deletions do: a deleted slot is never found.
    private func button(_ id: String) throws(ButtonsError) -> ButtonSlot { try registry.button(id) }

    /// Applies `command` to the batch's machines. Refused (unknown button, engine error,
    /// full delivery queue): answered now, the batch unchanged. Accepted: answered when the
    /// batch is committed, with its own events.
    package func apply(_ command: Command, reply: @escaping Reply, to batch: inout Batch) {
        let now = clock.now()
        let mark = batch.events.count
        do throws(ButtonsError) {
            var buttons: [(ButtonSlot, ButtonMachine)] = []
            var sheet: (SheetSlot, SheetMachine)?
            var gestures: [(GestureEvent, ControlEvent.Source)] = []
            try checkFuture(command, now: now)
            switch command {
            case .reset(let id):
                let slot = try button(id)
                var machine = batch.machine(of: slot)
                gestures = machine.reset(now: now).map { ($0, .button(id)) }
                buttons.append((slot, machine))
            case .input(let id, let input):
                let slot = try button(id)
                var machine = batch.machine(of: slot)
                do throws(InputError) {
                    gestures = try machine.apply(input, now: now).map { ($0, .button(id)) }
                } catch {
                    throw Self.conflict(error)
                }
                buttons.append((slot, machine))
            case .press(let id, let down, let holdMs):
                let slot = try button(id)
                var machine = batch.machine(of: slot)
                do throws(InputError) {
                    gestures = try machine.press(down, holdMs: holdMs, now: now).map { ($0, .button(id)) }
                } catch {
                    throw Self.conflict(error)
                }
                buttons.append((slot, machine))
            case .batch(let items):
                var machines: [String: (slot: ButtonSlot, machine: ButtonMachine)] = [:]
                var order: [String] = []
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
                        for gesture in try machines[item.button]!.machine.apply(item.input, now: now) {
                            gestures.append((gesture, .button(item.button)))
                        }
                    } catch {
                        throw Self.conflict(error, index: index)
                    }
                }
                buttons = order.map { machines[$0]! }
            case .face(let id, let face):
                let slot = try button(id)
                guard slot.definition.config.kind == .toggle else {
                    throw ButtonsError.conflict("not_toggle", "button '\(id)' is a push button; only toggles have faces")
                }
                var machine = batch.machine(of: slot)
                gestures = machine.setFace(face, now: now).map { ($0, .button(id)) }
                buttons.append((slot, machine))
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
                gestures = produced.map { ($0, .sheet(id)) }
                sheet = (slot, machine)
            }
            let range = batch.append(gestures, idPrefix: log.idPrefix)
            let rows = range.isEmpty ? [] : handlers.deliveries(for: Array(batch.events[range]), now: now)
            if !rows.isEmpty && dispatcher.depth + batch.deliveries.count + rows.count > maxQueue {
                batch.dropEvents(after: mark)
                throw ButtonsError.unavailable(
                    "the delivery queue is full (\(dispatcher.depth) deliveries waiting); try again shortly", retryAfter: 5)
            }
            for (slot, machine) in buttons { batch.keep(machine, of: slot) }
            if let (slot, machine) = sheet { batch.keep(machine, of: slot) }
            batch.deliveries += rows
            batch.answers.append(Batch.Answer(events: range, reply: reply))
        } catch {
            reply(.failure(error))
        }
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
        case .face, .reset: break
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
