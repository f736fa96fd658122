import Outbox
import ButtonEngine
import ButtonStore
import Platform

/// What the sequencer has decided but not yet written: the machines it changed (copies;
/// the slots keep the committed ones until the write succeeds), the events numbered from
/// `firstSeq`, their deliveries, and which caller gets which events.
///
/// While the batches before it are being committed, a batch is applied on top of them
/// (`under`): it reads the machines as they leave them and numbers its events after them. It keeps the commands it applied, so that if the batch under it fails it
/// can be applied again to what is committed, and holds back its refusals until then (a
/// refusal may have been decided on state that never became real).
package struct Batch {
    package struct Answer {
        var events: Range<Int>
        var reply: Sequencer.Reply
    }

    /// A command as it was submitted, kept to apply it again.
    package struct Submitted {
        var command: Command
        var sender: String?
        var reply: Sequencer.Reply
    }

    /// A refusal held back until the batch under this one is committed.
    package struct Refusal {
        var error: ButtonsError
        var reply: Sequencer.Reply
    }

    package let firstSeq: Int64
    package var buttons: [ObjectIdentifier: (slot: ButtonSlot, machine: ButtonMachine)] = [:]
    package var sheets: [ObjectIdentifier: (slot: SheetSlot, machine: SheetMachine)] = [:]
    package var events: [ControlEvent] = []
    package var deliveries: [DeliveryRow] = []
    package var answers: [Answer] = []
    /// Buttons whose timers fired in this batch (re-tried if the write fails).
    package var fired: [ButtonSlot] = []
    /// Sheets whose timeout fired in this batch (re-tried if the write fails).
    package var firedSheets: [SheetSlot] = []
    /// The commands applied (accepted or refused), in order.
    package var submitted: [Submitted] = []
    /// Refusals not answered yet: the batch was applied on top of one still in flight.
    package var refusals: [Refusal] = []
    /// The machines the batches not yet committed leave, each with the generation of its
    /// batch (the writer commits batches in generation order).
    private var under: [ObjectIdentifier: (slot: ButtonSlot, machine: ButtonMachine, generation: Int)] = [:]
    private var underSheets: [ObjectIdentifier: (slot: SheetSlot, machine: SheetMachine, generation: Int)] = [:]
    /// Deliveries of each batch under this one (by generation), not yet known to the dispatcher.
    private var deliveriesBelow: [(generation: Int, count: Int)] = []
    /// Deliveries of the batches under this one, not yet known to the dispatcher.
    package var deliveriesUnder: Int { deliveriesBelow.reduce(0) { $0 + $1.count } }
    /// The last second an event's `at` was written for, handed from batch to batch.
    private var timestamps = ISO8601Cache()
    /// This batch's place in the order of batches (1, 2, …).
    package let generation: Int

    package init(firstSeq: Int64, generation: Int = 1) {
        self.firstSeq = firstSeq
        self.generation = generation
    }

    /// The batch that follows `previous` while `previous` (and what is under it) is being
    /// written; what the writer has committed through generation `committed` is read from
    /// the slots again.
    package init(after previous: Batch, committed: Int) {
        firstSeq = previous.firstSeq + Int64(previous.events.count)
        generation = previous.generation + 1
        under = previous.under.filter { $0.value.generation > committed }
        underSheets = previous.underSheets.filter { $0.value.generation > committed }
        under.reserveCapacity(under.count + previous.buttons.count)
        for (id, entry) in previous.buttons { under[id] = (entry.slot, entry.machine, previous.generation) }
        for (id, entry) in previous.sheets { underSheets[id] = (entry.slot, entry.machine, previous.generation) }
        deliveriesBelow = previous.deliveriesBelow.filter { $0.generation > committed }
        if !previous.deliveries.isEmpty { deliveriesBelow.append((previous.generation, previous.deliveries.count)) }
        timestamps = previous.timestamps
        // Under load one batch is much like the one before: room for as much saves the
        // arrays and tables growing step by step (each step a copy) all over again.
        events.reserveCapacity(previous.events.count)
        answers.reserveCapacity(previous.answers.count)
        submitted.reserveCapacity(previous.submitted.count)
        buttons.reserveCapacity(previous.buttons.count)
    }

    /// Nothing to write and nobody to answer.
    package var isEmpty: Bool { !needsWrite && refusals.isEmpty }

    /// Something to commit, or someone to answer after the commit.
    package var needsWrite: Bool { !(buttons.isEmpty && sheets.isEmpty && events.isEmpty && answers.isEmpty) }

    /// The button's machine as this batch has left it so far.
    package func machine(of slot: ButtonSlot) -> ButtonMachine {
        let id = ObjectIdentifier(slot)
        return buttons[id]?.machine ?? under[id]?.machine ?? slot.machine
    }

    package func machine(of slot: SheetSlot) -> SheetMachine {
        let id = ObjectIdentifier(slot)
        return sheets[id]?.machine ?? underSheets[id]?.machine ?? slot.machine
    }

    package mutating func keep(_ machine: ButtonMachine, of slot: ButtonSlot) {
        buttons[ObjectIdentifier(slot)] = (slot, machine)
    }

    package mutating func keep(_ machine: SheetMachine, of slot: SheetSlot) {
        sheets[ObjectIdentifier(slot)] = (slot, machine)
    }

    /// Numbers and appends the events of `source`'s gestures; returns their positions in `events`.
    @discardableResult
    package mutating func append(
        _ gestures: [GestureEvent], of source: Source, idPrefix: String, by sender: String? = nil
    ) -> Range<Int> {
        let start = events.count
        for gesture in gestures {
            events.append(
                ControlEvent(
                    seq: firstSeq + Int64(events.count), idPrefix: idPrefix, gesture: gesture, source: source, by: sender,
                    timestamps: &timestamps))
        }
        return start..<events.count
    }

    /// Takes back the events appended since `count` (an operation refused after applying).
    package mutating func dropEvents(after count: Int) {
        events.removeSubrange(count...)
    }

    /// The states to write: every button this batch touched, as it leaves it.
    package var states: [ButtonStateChange] {
        buttons.values.map { entry in
            let state = entry.machine.state
            return ButtonStateChange(
                id: entry.slot.id, face: state.face, clock: entry.machine.clock, held: state.held, tapCount: state.tapCount,
                armedUntil: state.armedUntil)
        }
    }
}
