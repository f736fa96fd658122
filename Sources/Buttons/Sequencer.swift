import ButtonEngine
import ButtonStore
import JSON
import ThreadSupport

/// The one owner of every button's and sheet's live state. Request threads parse and
/// validate, hand a `Command` over with a reply, and suspend their connection; a turn takes
/// everything queued, fires the timers that are due first (committed ahead of the input), and
/// applies the commands in order to copies of the machines. The writer thread
/// (`Sequencer+Writer.swift`) runs input's turns itself between commits, writes each batch
/// (events, states, deliveries) in one transaction and only then keeps the new machines,
/// publishes the events and answers each caller with exactly its own events. The sequencer
/// thread runs the turns of timers, exclusive jobs and recovery, on top of a batch being
/// committed; if that batch fails, what was applied on it is applied again to what is
/// committed. A refused command (404, 409, 503) is answered without a trace, once nothing
/// it was decided on can still fail.
package final class Sequencer: @unchecked Sendable {  // `queue`, `stopped`, `running` and `writerFailed` are guarded by `condition`, the pipeline's state and `timers` by `stage` (a turn runs on the sequencer or the writer thread, always under it)
    package typealias Reply = @Sendable (Result<[ControlEvent], ButtonsError>) -> Void

    package enum Work: Sendable {
        /// A command, and who sent it (a named token's name, `mqtt`, `osc`): `by` in its events.
        case command(Command, String?, Reply)
        /// Runs alone on the sequencer thread, after what was queued before it is committed.
        case exclusive(@Sendable () -> Void)
    }

    let condition = Condition()
    private var queue: [Work] = []
    private var stopped = false
    private var running = false
    /// The writer refused a batch: the sequencer is to apply again what followed it.
    private var writerFailed = false
    /// The writer is awake (or woken) and will look at the queue before it sleeps again: a
    /// submit wakes it only when this is false (`Sequencer+Writer.swift`).
    var writerBusy = false
    /// Where the idle writer sleeps: `kicked` (guarded by it) says there may be work.
    let writerBell = Condition()
    var kicked = false
    /// When the sequencer thread sleeps, the deadline it sleeps until (`Int64.max`: none); a
    /// turn on the writer that arms an earlier timer wakes it.
    var sleepingUntil: Int64?

    /// Guards the pipeline's stage between the two threads: `open`, `writing`, `failed`, `committed`, `timers`, `exclusiveRunning` and `writerRunning`. The sequencer holds it
    /// while it applies one turn; the writer takes it to take the next batch.
    let stage = Condition()
    /// The batch being applied, on top of every batch not yet committed. The writer takes it
    /// when it is free.
    var open = Batch(firstSeq: 0)
    /// The writer has a batch it has not finished.
    var writing = false
    /// The batch the writer could not commit, until the sequencer has applied again what
    /// followed it; the writer takes nothing meanwhile.
    var failed: Batch?
    /// Every batch up to this generation is committed.
    var committed = 0
    /// An exclusive job runs (stage lock released): the writer applies nothing meanwhile.
    var exclusiveRunning = false
    var writerRunning = false
    /// Who sent the last input each button took (a named token, "mqtt", "osc"), by button id:
    /// the events its timers fire later (a single tap, a long press) carry the same `by`
    /// (stage lock).
    var senders: [String: String] = [:]

    package let registry: Registry
    package let log: EventLog
    package let publisher: StreamPublisher
    package let handlers: any DeliveryRules
    package let dispatcher: any DeliveryQueue
    package let observer: any CommitObserver
    package let clock: Clock
    /// Undelivered deliveries allowed before input that would add more is refused with 503.
    package let maxQueue: Int
    /// How far ahead of the server clock an input's `t` may be.
    package let maxFutureMs: Int64
    package var timers = TimerHeap<ButtonSlot>()
    /// Open sheets' timeouts (`openTimeoutMs`).
    package var sheetTimers = TimerHeap<SheetSlot>()
    /// The earliest timer of either kind (stage lock).
    var nextTimer: Int64? {
        switch (timers.next, sheetTimers.next) {
        case (let a?, let b?): min(a, b)
        case (let a, let b): a ?? b
        }
    }

    package init(
        registry: Registry, log: EventLog, publisher: StreamPublisher, handlers: any DeliveryRules,
        dispatcher: any DeliveryQueue, observer: any CommitObserver, clock: Clock, maxQueue: Int, maxFutureMs: Int64 = 60_000
    ) {
        self.registry = registry
        self.log = log
        self.publisher = publisher
        self.handlers = handlers
        self.dispatcher = dispatcher
        self.observer = observer
        self.clock = clock
        self.maxQueue = maxQueue
        self.maxFutureMs = maxFutureMs
    }

    package func start() {
        condition.locked { running = true }
        stage.locked {
            writerRunning = true
            open = Batch(firstSeq: log.nextSeq)
        }
        startThread(name: "buttond.writer") { [self] in runWriter() }
        startThread(name: "buttond.sequencer") { [self] in run() }
    }

    /// Finishes what is queued, then stops the thread.
    package func stop() {
        condition.locked {
            stopped = true
            condition.broadcast()
            while running { condition.wait() }
        }
    }

    /// Queues `command`; `reply` is called once, on the writer thread after its events are
    /// committed, or on the sequencer thread with the error that refused it.
    package func submit(_ command: Command, by sender: String? = nil, reply: @escaping Reply) {
        let rings = condition.locked { () -> Bool? in
            guard running, !stopped else { return nil }
            queue.append(.command(command, sender, reply))
            guard !writerBusy else { return false }
            writerBusy = true
            return true
        }
        switch rings {
        case nil: reply(.failure(.unavailable("the server is shutting down", retryAfter: 5)))
        // Rung once the queue's lock is released: the writer (nice -10) preempted a request
        // thread that rang it holding the lock, then waited for that lock itself, and each
        // wake-up cost four switches instead of one. Alternating rounds, sixteen and 64
        // buttons: CPU per press 37.4 -> 36.2 us, req/s 1.07 and 1.05 x (one run of three 0.99 x).
        case true?: kickWriter()
        case false?: break
        }
    }

    /// Runs `body` on the sequencer thread, between batches, and waits for it: for the rare
    /// changes of definitions (update, delete, import) that must not interleave with input.
    /// Before `start` (loading) it runs on the caller's thread.
    package func exclusive<T: Sendable>(_ body: @escaping @Sendable () throws(ButtonsError) -> T) throws(ButtonsError) -> T {
        let done = Condition()
        nonisolated(unsafe) var result: Result<T, ButtonsError>?  // written once by `body`'s thread under `done`
        let job: @Sendable () -> Void = {
            let value: Result<T, ButtonsError>
            do throws(ButtonsError) { value = .success(try body()) } catch { value = .failure(error) }
            done.locked {
                result = value
                done.signal()
            }
        }
        let queued = condition.locked { () -> Bool in
            guard running, !stopped else { return false }
            queue.append(.exclusive(job))
            condition.signal()  // submits ring the writer; an exclusive job is the sequencer's
            return true
        }
        if !queued { job() }
        return try done.locked { () throws(ButtonsError) -> T in
            while result == nil { done.wait() }
            return try result!.get()
        }
    }

    private func run() {
        // Woken request threads must not preempt the thread that applies them all, and a
        // timer must not wait behind them.
        setThreadNice(-10)
        stage.lock()
        while true {
            condition.lock()
            let idle = queue.isEmpty && !writerFailed
            if idle && stopped {
                condition.unlock()
                break
            }
            // `timers` is read and changed under the stage lock (the writer applies too).
            let next = nextTimer
            if idle, next.map({ Double($0) > clock.precise() }) ?? true {
                stage.unlock()
                sleepingUntil = next ?? .max
                if let next {
                    _ = condition.wait(seconds: (Double(next) - clock.precise()) / 1000)
                } else {
                    condition.wait()
                }
                sleepingUntil = nil
                condition.unlock()
                stage.lock()
                continue
            }
            let work = queue
            queue = []
            writerFailed = false
            condition.unlock()
            turn(work)
        }
        drain()
        writerRunning = false
        stage.broadcast()
        stage.unlock()
        kickWriter()
        condition.locked {
            running = false
            condition.broadcast()
        }
    }

    /// Takes what is queued for the writer to apply itself (stage lock held), unless the
    /// sequencer must: an exclusive job is queued or runs, or a batch failed. Marks the writer
    /// busy when it takes something (submits then do not ring it), idle otherwise.
    func takeQueuedForWriter() -> [Work]? {
        condition.locked { () -> [Work]? in
            let eligible = !queue.isEmpty && !exclusiveRunning && failed == nil && !writerFailed
                && !queue.contains { if case .exclusive = $0 { true } else { false } }
            guard eligible else {
                writerBusy = false
                if !queue.isEmpty { condition.signal() }
                return nil
            }
            writerBusy = true
            let work = queue
            queue = []
            return work
        }
    }

    /// Applies `work` on the writer's thread (stage lock held), and wakes the sequencer if it
    /// armed a timer earlier than the one the sequencer sleeps until.
    func applyOnWriter(_ work: [Work]) {
        turn(work)
        let next = nextTimer
        condition.locked {
            if let sleepingUntil, let next, next < sleepingUntil { condition.signal() }
        }
    }

    /// One turn (stage lock held): what followed a failed batch again, due timers first, then
    /// the queued work in order, on the sequencer or the writer thread. An exclusive job waits until
    /// everything before it is committed.
    private func turn(_ work: [Work]) {
        if let failed { recover(from: failed) }
        fireDueTimers()
        for item in work {
            switch item {
            case .command(let command, let sender, let reply):
                apply(command, by: sender, reply: reply, to: &open)
            case .exclusive(let job):
                drain()
                exclusiveRunning = true
                stage.unlock()
                job()
                stage.lock()
                exclusiveRunning = false
                // The job may have changed machines in their slots: read them again.
                open = Batch(firstSeq: open.firstSeq, generation: open.generation)
                endDisabled()
            }
        }
        wakeWriter()
    }

    /// Whether a refusal must wait (stage lock held): a batch it may have been decided on is
    /// not committed yet.
    var refusalsWait: Bool { writing }

    /// Wakes the writer if it waits for work (stage lock held).
    private func wakeWriter() {
        if !writing && !open.isEmpty { kickWriter() }
    }

    /// Rings the idle writer's bell; a ring before it sleeps is not lost.
    func kickWriter() {
        writerBell.locked {
            kicked = true
            writerBell.signal()
        }
    }

    /// The writer could not commit `failed` (its callers have their 503): the open batch was
    /// applied on top of it, so its commands are applied again to what is committed (their seq numbers, refusals and deliveries were decided on a batch that
    /// never happened). Its fired timers retry shortly.
    private func recover(from failed: Batch) {
        self.failed = nil
        let retry = clock.now() + 100
        for slot in failed.fired { timers.schedule(slot, at: retry) }
        for slot in failed.firedSheets { sheetTimers.schedule(slot, at: retry) }
        let again = open
        open = Batch(firstSeq: failed.firstSeq, generation: failed.generation)
        let now = clock.now()
        for slot in again.fired { timers.schedule(slot, at: now) }
        for slot in again.firedSheets { sheetTimers.schedule(slot, at: now) }
        fireDueTimers()
        for item in again.submitted { apply(item.command, by: item.sender, reply: item.reply, to: &open) }
        for (_, entry) in failed.buttons { arm(entry.slot) }
        for (_, entry) in failed.sheets { arm(entry.slot) }
    }

    /// Waits (stage lock held) until everything applied so far is committed or refused.
    private func drain() {
        while true {
            if let failed {
                recover(from: failed)
                continue
            }
            guard writing || !open.isEmpty else { return }
            wakeWriter()
            stage.wait()
        }
    }

    /// Called by the writer when it could not commit a batch.
    func writerRefused() {
        condition.locked {
            writerFailed = true
            condition.broadcast()
        }
    }

    /// Re-arms the slot's timer at the next deadline of its latest machine (the open batch's,
    /// the one in flight, or the committed one), mapped to the server clock.
    package func arm(_ slot: ButtonSlot, _ latest: ButtonMachine? = nil) {
        let machine = latest ?? open.machine(of: slot)
        guard !slot.removed, let deadline = machine.nextDeadline else { return }
        timers.schedule(slot, at: deadline.saturatingSubtract(machine.clockOffset))
    }

    /// Arms the sheet's timeout at its latest machine's deadline, if it is open with one.
    package func arm(_ sheet: SheetSlot, _ latest: SheetMachine? = nil) {
        let machine = latest ?? open.machine(of: sheet)
        guard !sheet.removed, machine.isOpen, let deadline = machine.closesAt else { return }
        sheetTimers.schedule(sheet, at: deadline)
    }

    /// Fires every timer that is due into the open batch: buttons', then sheets' timeouts.
    private func fireDueTimers() {
        let now = clock.now()
        defer { fireDueSheetTimers(now: now) }
        for slot in timers.popDue(now: now) where !slot.removed {
            var machine = open.machine(of: slot)
            let gestures = machine.fireDue(now: now)
            guard !gestures.isEmpty else {
                arm(slot, machine)  // a stale deadline: nothing was due
                continue
            }
            open.fired.append(slot)
            open.keep(machine, of: slot)
            arm(slot, machine)
            let events = open.append(gestures, of: .button(slot.id), idPrefix: log.idPrefix, by: senders[slot.id])
            // A timer's deliveries are never refused for a full queue: the press was accepted.
            open.deliveries += handlers.deliveries(for: open.events[events], now: now)
        }
    }
}

extension Sequencer {
    /// Cancels every open sheet whose timeout is due (`sheet-cancel`, `reason: "timeout"`).
    fileprivate func fireDueSheetTimers(now: Int64) {
        for slot in sheetTimers.popDue(now: now) where !slot.removed {
            var machine = open.machine(of: slot)
            let gestures = machine.fireDue(now: now)
            guard !gestures.isEmpty else {
                arm(slot, machine)  // closed, or opened again since: nothing was due
                continue
            }
            open.firedSheets.append(slot)
            open.keep(machine, of: slot)
            let events = open.append(gestures, of: .sheet(slot.id), idPrefix: log.idPrefix)
            open.deliveries += handlers.deliveries(for: open.events[events], now: now)
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
