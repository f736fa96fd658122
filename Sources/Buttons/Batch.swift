import Outbox
import ButtonEngine
import ButtonStore
import Platform

/// What one turn of the sequencer decided (`SequencerState.turn`), not yet written: the
/// machines it changed (copies; the slots keep the committed ones until the write succeeds),
/// the events numbered from `firstSeq`, their deliveries, which caller gets which events, and
/// who was refused.
package struct Batch {
    package struct Answer {
        package var events: Range<Int>
        package var reply: Sequencer.Reply
    }

    /// A refused command's caller and why.
    package struct Refusal {
        package var error: ButtonsError
        package var reply: Sequencer.Reply
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
    /// Refused commands, answered before the batch is written (decided on what is committed
    /// and on this batch's own commands before them).
    package var refusals: [Refusal] = []
    /// The last second an event's `at` was written for, handed from turn to turn.
    package private(set) var timestamps: ISO8601Cache

    package init(firstSeq: Int64, timestamps: ISO8601Cache = ISO8601Cache()) {
        self.firstSeq = firstSeq
        self.timestamps = timestamps
    }

    /// Room for as much as a batch like the last one holds.
    mutating func reserve(events: Int, answers: Int, buttons: Int) {
        self.events.reserveCapacity(events)
        self.answers.reserveCapacity(answers)
        self.buttons.reserveCapacity(buttons)
    }

    /// Nothing to write and nobody to answer.
    package var isEmpty: Bool { !needsWrite && refusals.isEmpty }

    /// Something to commit, or someone to answer after the commit.
    package var needsWrite: Bool { !(buttons.isEmpty && sheets.isEmpty && events.isEmpty && answers.isEmpty) }

    /// The button's machine as this batch has left it so far.
    package func machine(of slot: ButtonSlot) -> ButtonMachine {
        let id = ObjectIdentifier(slot)
        return buttons[id]?.machine ?? slot.machine
    }

    package func machine(of slot: SheetSlot) -> SheetMachine {
        let id = ObjectIdentifier(slot)
        return sheets[id]?.machine ?? slot.machine
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
