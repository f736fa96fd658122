import ButtonEngine
import ButtonStore

/// What one sequencer turn has decided but not yet written: the machines it changed (copies;
/// the slots keep the committed ones until the write succeeds), the events numbered from
/// `firstSeq`, their deliveries, and which caller gets which events.
package struct Batch {
    package struct Answer {
        var events: Range<Int>
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

    package init(firstSeq: Int64) {
        self.firstSeq = firstSeq
    }

    /// Nothing to write and nobody to answer.
    package var isEmpty: Bool { buttons.isEmpty && sheets.isEmpty && events.isEmpty && answers.isEmpty }

    /// The button's machine as this batch has left it so far.
    package func machine(of slot: ButtonSlot) -> ButtonMachine {
        buttons[ObjectIdentifier(slot)]?.machine ?? slot.machine
    }

    package func machine(of slot: SheetSlot) -> SheetMachine {
        sheets[ObjectIdentifier(slot)]?.machine ?? slot.machine
    }

    package mutating func keep(_ machine: ButtonMachine, of slot: ButtonSlot) {
        buttons[ObjectIdentifier(slot)] = (slot, machine)
    }

    package mutating func keep(_ machine: SheetMachine, of slot: SheetSlot) {
        sheets[ObjectIdentifier(slot)] = (slot, machine)
    }

    /// Numbers and appends events; returns their positions in `events`.
    @discardableResult
    package mutating func append(
        _ gestures: [(GestureEvent, ControlEvent.Source)], idPrefix: String, by sender: String? = nil
    ) -> Range<Int> {
        let start = events.count
        for (gesture, source) in gestures {
            events.append(
                ControlEvent(seq: firstSeq + Int64(events.count), idPrefix: idPrefix, gesture: gesture, source: source, by: sender))
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
                id: entry.slot.id, face: state.face, clock: entry.machine.clock, held: state.held, tapCount: state.tapCount)
        }
    }
}
