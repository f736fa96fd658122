import ButtonEngine
import ButtonStore
import Outbox
import Platform

/// The sequencer's decisions, as a value: no thread, no lock, no clock (`now` is given). A turn
/// fires the timers that are due, then applies the submitted commands in order to copies of
/// the machines, into a `Batch`: the events numbered from the next seq, the machines to keep,
/// the deliveries, which caller gets which events and who is refused. The `Sequencer` performs
/// the batch (writes it, keeps its machines, publishes, delivers, answers) and says how the
/// write went: `committed` moves the seq on, `failed` takes the batch back (no seq used; its
/// fired timers retried shortly, every touched button's timer armed again from what is
/// committed). What it reads of the world is its `Environment`; `SequencerStateTests` drive
/// it by hand.
package struct SequencerState {
    /// What a turn reads of the world.
    package struct Environment {
        /// A registered button or sheet by id (404 when there is none).
        package var button: (String) throws(ButtonsError) -> ButtonSlot
        package var sheet: (String) throws(ButtonsError) -> SheetSlot
        /// The deliveries of a command's events.
        package var deliveries: (ArraySlice<ControlEvent>, Int64) -> [DeliveryRow]
        /// Deliveries not finished yet (the dispatcher's).
        package var queueDepth: () -> Int
        /// The event log's id prefix (`EventLog.idPrefix`).
        package var idPrefix: String
        /// Undelivered deliveries allowed before input that would add more is refused with 503.
        package var maxQueue: Int
        /// How far ahead of the server clock an input's `t` may be.
        package var maxFutureMs: Int64

        package init(
            button: @escaping (String) throws(ButtonsError) -> ButtonSlot,
            sheet: @escaping (String) throws(ButtonsError) -> SheetSlot,
            deliveries: @escaping (ArraySlice<ControlEvent>, Int64) -> [DeliveryRow],
            queueDepth: @escaping () -> Int, idPrefix: String, maxQueue: Int, maxFutureMs: Int64
        ) {
            self.button = button
            self.sheet = sheet
            self.deliveries = deliveries
            self.queueDepth = queueDepth
            self.idPrefix = idPrefix
            self.maxQueue = maxQueue
            self.maxFutureMs = maxFutureMs
        }
    }

    /// A command as submitted: what, by whom (a named token's name, `mqtt`, `osc`: `by` in its
    /// events) and who is answered.
    package struct Submission {
        package var command: Command
        package var sender: String?
        package var reply: Sequencer.Reply

        package init(_ command: Command, by sender: String? = nil, reply: @escaping Sequencer.Reply) {
            self.command = command
            self.sender = sender
            self.reply = reply
        }
    }

    let environment: Environment
    /// The seq of the next event committed.
    package var nextSeq: Int64
    /// Buttons' timers (long press, repeat, end of a tap series, max hold, disarm).
    package private(set) var timers = TimerHeap<ButtonSlot>()
    /// Open sheets' timeouts (`openTimeoutMs`).
    package private(set) var sheetTimers = TimerHeap<SheetSlot>()
    /// Who sent the last input each button took, by button id: the events its timers fire
    /// later (a single tap, a long press) carry the same `by`.
    private var senders: [String: String] = [:]
    /// The last second an event's `at` was written for, handed from batch to batch.
    private var timestamps = ISO8601Cache()
    /// The last batch's sizes: under load one batch is much like the one before, and room for
    /// as much saves its arrays and tables growing step by step.
    private var lastSize = (events: 0, answers: 0, buttons: 0)

    package init(environment: Environment, nextSeq: Int64) {
        self.environment = environment
        self.nextSeq = nextSeq
    }

    /// The earliest timer of either kind: when a turn is due without input.
    package var nextDeadline: Int64? {
        switch (timers.next, sheetTimers.next) {
        case (let a?, let b?): min(a, b)
        case (let a, let b): a ?? b
        }
    }

    /// One turn: the timers due at `now` first (a timer's events are committed ahead of the
    /// input that follows it), then `submissions` in order.
    package mutating func turn(_ submissions: [Submission], now: Int64) -> Batch {
        var batch = Batch(firstSeq: nextSeq, timestamps: timestamps)
        batch.reserve(events: lastSize.events, answers: lastSize.answers, buttons: lastSize.buttons)
        fireDueTimers(into: &batch, now: now)
        // By index: each submission is read where it lies (iterating copied it whole, its
        // command's strings and its reply retained and released again).
        for index in submissions.indices { apply(submissions[index], to: &batch, now: now) }
        timestamps = batch.timestamps
        lastSize = (batch.events.count, batch.answers.count, batch.buttons.count)
        return batch
    }

    /// The batch is durable: its events' seq numbers are used.
    package mutating func committed(_ batch: Batch) {
        nextSeq = batch.firstSeq + Int64(batch.events.count)
    }

    /// The store refused the batch: nothing of it happened. Its seq numbers are unused, the
    /// timers it fired are retried 100 ms from `now`, and every button and sheet it touched is
    /// armed again from its committed machine.
    package mutating func failed(_ batch: Batch, now: Int64) {
        let retry = now + 100
        for slot in batch.fired { timers.schedule(slot, at: retry) }
        for slot in batch.firedSheets { sheetTimers.schedule(slot, at: retry) }
        // A fired one's committed machine is due now: armed from it, it would fire at once.
        let fired = Set(batch.fired.map(ObjectIdentifier.init)), firedSheets = Set(batch.firedSheets.map(ObjectIdentifier.init))
        for (id, entry) in batch.buttons where !fired.contains(id) { arm(entry.slot, entry.slot.machine) }
        for (id, entry) in batch.sheets where !firedSheets.contains(id) { arm(entry.slot, entry.slot.machine) }
    }

    /// Re-arms the button's timer at its machine's next deadline, mapped to the server clock.
    package mutating func arm(_ slot: ButtonSlot, _ machine: ButtonMachine) {
        guard !slot.removed, let deadline = machine.nextDeadline else { return }
        timers.schedule(slot, at: deadline.saturatingSubtract(machine.clockOffset))
    }

    /// Arms the sheet's timeout at its machine's deadline, if it is open with one.
    package mutating func arm(_ sheet: SheetSlot, _ machine: SheetMachine) {
        guard !sheet.removed, machine.isOpen, let deadline = machine.closesAt else { return }
        sheetTimers.schedule(sheet, at: deadline)
    }

    /// Fires every timer that is due into the batch: buttons', then sheets' timeouts. A
    /// timer's deliveries are never refused for a full queue: the press was accepted.
    private mutating func fireDueTimers(into batch: inout Batch, now: Int64) {
        for slot in timers.popDue(now: now) where !slot.removed {
            var machine = batch.machine(of: slot)
            let gestures = machine.fireDue(now: now)
            guard !gestures.isEmpty else {
                arm(slot, machine)  // a stale deadline: nothing was due
                continue
            }
            batch.fired.append(slot)
            batch.keep(machine, of: slot)
            arm(slot, machine)
            let events = batch.append(gestures, of: .button(slot.id), idPrefix: environment.idPrefix, by: senders[slot.id])
            batch.deliveries += environment.deliveries(batch.events[events], now)
        }
        for slot in sheetTimers.popDue(now: now) where !slot.removed {
            var machine = batch.machine(of: slot)
            let gestures = machine.fireDue(now: now)
            guard !gestures.isEmpty else {
                arm(slot, machine)  // closed, or opened again since: nothing was due
                continue
            }
            batch.firedSheets.append(slot)
            batch.keep(machine, of: slot)
            let events = batch.append(gestures, of: .sheet(slot.id), idPrefix: environment.idPrefix)
            batch.deliveries += environment.deliveries(batch.events[events], now)
        }
    }

    /// Applies one submission to the batch's machines. Refused (unknown button, engine error,
    /// full delivery queue): the batch unchanged, its caller among the batch's refusals.
    /// Accepted: its events and deliveries in the batch, its caller among the answers.
    private mutating func apply(_ submission: Submission, to batch: inout Batch, now: Int64) {
        let mark = batch.events.count
        do throws(ButtonsError) {
            try checkFuture(submission.command, now: now)
            let applied = try machines(after: submission.command, in: batch, now: now)
            for run in applied.gestures {
                batch.append(run.gestures, of: run.source, idPrefix: environment.idPrefix, by: submission.sender)
            }
            let range = mark..<batch.events.count
            let rows = range.isEmpty ? [] : environment.deliveries(batch.events[range], now)
            if !rows.isEmpty && submission.command.mayWaitForQueue {
                let depth = environment.queueDepth()
                if depth + batch.deliveries.count + rows.count > environment.maxQueue {
                    batch.dropEvents(after: mark)
                    throw ButtonsError.unavailable(
                        "the delivery queue is full (\(depth) deliveries waiting); try again shortly", retryAfter: 5)
                }
            }
            for (slot, machine) in applied.buttons {
                batch.keep(machine, of: slot)
                arm(slot, machine)
                senders[slot.id] = submission.sender
            }
            if let (slot, machine) = applied.sheet {
                batch.keep(machine, of: slot)
                arm(slot, machine)
            }
            batch.deliveries += rows
            batch.answers.append(Batch.Answer(events: range, reply: submission.reply))
        } catch {
            batch.refusals.append(Batch.Refusal(error: error, reply: submission.reply))
        }
    }
}

/// Saturating subtraction for mapping a button's clock back to the server's.
extension Int64 {
    fileprivate func saturatingSubtract(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }
}
