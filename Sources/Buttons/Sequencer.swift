import ButtonEngine
import ButtonStore
import JSON
import ThreadSupport

/// The one owner of every button's and sheet's live state. Request threads parse and
/// validate, hand a `Command` over with a reply, and suspend their connection; the
/// sequencer thread takes everything queued, fires the timers that are due first (committed
/// ahead of the input), and applies the commands in order to copies of the machines. The
/// writer thread (`Sequencer+Writer.swift`) writes each batch (events, states, deliveries) in
/// one transaction and only then keeps the new machines, publishes the events and answers
/// each caller with exactly its own events. The two run as a pipeline: while batch N is
/// committed, batch N+1 is applied on top of it; if N fails, N+1 is applied again to what is
/// committed. A refused command (404, 409, 503) is answered without a trace, once nothing
/// it was decided on can still fail.
package final class Sequencer: @unchecked Sendable {  // `queue`, `stopped`, `running` and `outcome` are guarded by `condition`, `handoff` and `writerRunning` by `writeCondition`; the rest belongs to the sequencer thread
    package typealias Reply = @Sendable (Result<[ControlEvent], ButtonsError>) -> Void

    package enum Work: Sendable {
        /// A command, and who sent it (a named token's name, `mqtt`, `osc`): `by` in its events.
        case command(Command, String?, Reply)
        /// Runs alone on the sequencer thread, after what was queued before it is committed.
        case exclusive(@Sendable () -> Void)
    }

    private let condition = Condition()
    private var queue: [Work] = []
    private var stopped = false
    private var running = false
    /// How the writer's last batch ended (true: committed), until the sequencer takes it.
    private var outcome: Bool?

    let writeCondition = Condition()
    /// The batch the writer is to commit next.
    var handoff: Batch?
    var writerRunning = false

    /// The batch the writer has, until its outcome is taken.
    private var inFlight: Batch?
    /// The batch being applied: on top of `inFlight`, if there is one.
    private var open = Batch(firstSeq: 0)
    /// The last batch handed to the writer answered more than one request.
    private var busy = false

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
    /// Wraps the answers of one batch (the server takes its connection lock once for all).
    let answering: @Sendable (() -> Void) -> Void
    package var timers = TimerHeap()

    package init(
        registry: Registry, log: EventLog, publisher: StreamPublisher, handlers: any DeliveryRules,
        dispatcher: any DeliveryQueue, observer: any CommitObserver, clock: Clock, maxQueue: Int, maxFutureMs: Int64 = 60_000,
        answering: @escaping @Sendable (() -> Void) -> Void = { $0() }
    ) {
        self.answering = answering
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
        writeCondition.locked { writerRunning = true }
        open = Batch(firstSeq: log.nextSeq)
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
        condition.locked {
            guard running, !stopped else {
                reply(.failure(.unavailable("the server is shutting down", retryAfter: 5)))
                return
            }
            queue.append(.command(command, sender, reply))
            if queue.count == 1 { condition.signal() }
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
            if queue.count == 1 { condition.signal() }
            return true
        }
        if !queued { job() }
        return try done.locked { () throws(ButtonsError) -> T in
            while result == nil { done.wait() }
            return try result!.get()
        }
    }

    /// Under load (the last batch answered more than one request), a batch the free writer
    /// would take with fewer than `lingerBelow` requests waits up to `linger` seconds for more.
    package static let lingerBelow = 32
    package static let linger = 0.0002

    private func timerDue(within milliseconds: Double) -> Bool {
        guard let next = timers.next else { return false }
        return Double(next) <= clock.precise() + milliseconds
    }

    private func run() {
        // Woken request threads must not preempt the thread that answers them all, and a
        // timer must not wait behind them.
        setThreadNice(-10)
        condition.lock()
        while true {
            if queue.isEmpty && outcome == nil {
                if stopped {
                    if inFlight == nil && open.isEmpty { break }
                    condition.wait()  // for the writer
                    continue
                }
                if let next = timers.next {
                    let wait = Double(next) - clock.precise()
                    if wait > 0 {
                        condition.wait(seconds: wait / 1000)
                        continue
                    }
                } else {
                    condition.wait()
                    continue
                }
            }
            if busy && inFlight == nil && outcome == nil && queue.count + open.answers.count < Self.lingerBelow && !stopped
                && !timerDue(within: Self.linger * 1000)
            {
                // Under load, with the writer free, a moment's wait lets more requests join its
                // next transaction: fewer, larger commits cost less per input than many small ones.
                condition.wait(seconds: Self.linger)
            }
            let work = queue
            queue = []
            let settled = outcome
            outcome = nil
            condition.unlock()
            if let settled { settle(settled) }
            process(work)
            if inFlight == nil && !open.isEmpty { handOff() }
            condition.lock()
        }
        condition.unlock()
        stopWriter()
        condition.locked {
            running = false
            condition.broadcast()
        }
    }

    /// One turn: due timers first (a write of their own ahead of the input when the writer is
    /// free: a long press is never late because other buttons are busy), then the queued
    /// work in order. An exclusive job waits until everything before it is committed.
    private func process(_ work: [Work]) {
        fireDueTimers()
        if inFlight == nil && !open.events.isEmpty && !work.isEmpty { handOff() }
        for item in work {
            switch item {
            case .command(let command, let sender, let reply):
                apply(command, by: sender, reply: reply, to: &open)
            case .exclusive(let job):
                drain()
                job()
            }
        }
    }

    /// Whether a refusal must wait: the state it was decided on is not all committed yet.
    var refusalsWait: Bool { inFlight != nil }

    /// Gives the open batch to the writer and opens the next on top of it; the refusals it
    /// held back are answered now, since what it was applied on is committed.
    private func handOff() {
        let batch = open
        open = Batch(after: batch)
        busy = batch.answers.count > 1
        if batch.needsWrite {
            inFlight = batch
            write(batch.sealed)
        } else {
            open = Batch(firstSeq: batch.firstSeq)
        }
        let refusals = batch.refusals
        if !refusals.isEmpty { answering { for refusal in refusals { refusal.reply(.failure(refusal.error)) } } }
    }

    /// Takes the writer's outcome for the batch in flight. Committed: its buttons' timers are
    /// re-armed. Failed: its fired timers retry shortly, and the open batch, applied on top
    /// of it, is applied again to what is committed (its seq numbers, refusals and
    /// deliveries were decided on a batch that never happened).
    private func settle(_ committed: Bool) {
        guard let done = inFlight else { return }
        inFlight = nil
        if committed {
            for (_, entry) in done.buttons { arm(entry.slot) }
            return
        }
        let retry = clock.now() + 100
        for slot in done.fired { timers.schedule(slot, at: retry) }
        let again = open
        open = Batch(firstSeq: log.nextSeq)
        let now = clock.now()
        for slot in again.fired { timers.schedule(slot, at: now) }
        fireDueTimers()
        for item in again.submitted { apply(item.command, by: item.sender, reply: item.reply, to: &open) }
        for (_, entry) in done.buttons { arm(entry.slot) }
        for (_, entry) in again.buttons { arm(entry.slot) }
    }

    /// Waits until everything applied so far is committed (or refused).
    private func drain() {
        while true {
            if inFlight != nil {
                let committed = condition.locked { () -> Bool in
                    while outcome == nil { condition.wait() }
                    defer { outcome = nil }
                    return outcome!
                }
                settle(committed)
            }
            guard !open.isEmpty else { return }
            handOff()
        }
    }

    /// Called by the writer when the batch it was given is committed or refused.
    func writerDone(committed: Bool) {
        condition.locked {
            outcome = committed
            condition.broadcast()
        }
    }

    /// Re-arms the slot's timer at the next deadline of its latest machine (the open batch's,
    /// the one in flight, or the committed one), mapped to the server clock.
    package func arm(_ slot: ButtonSlot) {
        let machine = open.machine(of: slot)
        guard !slot.removed, let deadline = machine.nextDeadline else { return }
        timers.schedule(slot, at: deadline.saturatingSubtract(machine.clockOffset))
    }

    /// Fires every timer that is due into the open batch.
    private func fireDueTimers() {
        let now = clock.now()
        for slot in timers.popDue(now: now) where !slot.removed {
            var machine = open.machine(of: slot)
            let gestures = machine.fireDue(now: now)
            guard !gestures.isEmpty else {
                arm(slot)  // a stale deadline: nothing was due
                continue
            }
            open.fired.append(slot)
            open.keep(machine, of: slot)
            let events = open.append(gestures.map { ($0, .button(slot.id)) }, idPrefix: log.idPrefix)
            // A timer's deliveries are never refused for a full queue: the press was accepted.
            open.deliveries += handlers.deliveries(for: Array(open.events[events]), now: now)
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
