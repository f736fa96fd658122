import ButtonEngine
import ButtonStore
import JSON
import ThreadSupport

/// The one owner of every button's and sheet's live state. Request threads parse and
/// validate, hand a `Command` over with a reply, and suspend their connection; the
/// sequencer thread takes everything queued, fires the timers that are due first (committed
/// ahead of the input), applies the commands in order to copies of the machines, writes the
/// whole batch (events, states, deliveries) in one transaction, and only then keeps the new
/// machines, publishes the events and answers each caller with exactly its own events. A refused command (404,
/// 409, 503) is answered at once and changes nothing.
package final class Sequencer: @unchecked Sendable {  // `queue`, `stopped` and `running` are guarded by `condition`; the rest belongs to the sequencer thread
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

    /// Queues `command`; `reply` is called once, on the sequencer thread, after its events
    /// are committed (or at once with the error that refused it).
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

    /// Under load (the last turn had more than one request), a turn with fewer than
    /// `lingerBelow` requests waits up to `linger` seconds for more before it commits.
    package static let lingerBelow = 32
    package static let linger = 0.0002

    private func run() {
        var busy = false
        // Woken request threads must not preempt the thread that answers them all, and a
        // timer must not wait behind them.
        setThreadNice(-10)
        condition.lock()
        while true {
            if queue.isEmpty {
                if stopped { break }
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
            if busy && queue.count < Self.lingerBelow && !stopped && !timerDue(within: Self.linger * 1000) {
                // Under load, a moment's wait lets more requests join this transaction: fewer,
                // larger commits cost less per input than many small ones.
                condition.wait(seconds: Self.linger)
            }
            let work = queue
            queue = []
            busy = work.count > 1
            condition.unlock()
            process(work)
            condition.lock()
        }
        running = false
        condition.broadcast()
        condition.unlock()
    }

    /// One turn: due timers first, then the queued work in order, committed in as few
    /// transactions as exclusive jobs allow (one, usually).
    private func timerDue(within milliseconds: Double) -> Bool {
        guard let next = timers.next else { return false }
        return Double(next) <= clock.precise() + milliseconds
    }

    private func process(_ work: [Work]) {
        var batch = Batch(firstSeq: log.nextSeq)
        fireDueTimers(into: &batch)
        if !batch.events.isEmpty && !work.isEmpty {
            // Timer events go out in a small transaction of their own, ahead of the queued
            // input: a long press is never late because other buttons are busy.
            commit(&batch)
            batch = Batch(firstSeq: log.nextSeq)
        }
        for item in work {
            switch item {
            case .command(let command, let sender, let reply):
                apply(command, by: sender, reply: reply, to: &batch)
            case .exclusive(let job):
                commit(&batch)
                batch = Batch(firstSeq: log.nextSeq)
                job()
            }
        }
        commit(&batch)
    }

    /// Writes the batch and, once it is durable, makes it real: machines kept, timers
    /// re-armed, events published, callers answered. If the store refuses it, nothing of it
    /// happened: callers get 503, seq numbers are not used, timers retry shortly.
    private func commit(_ batch: inout Batch) {
        guard !batch.isEmpty else { return }
        do throws(StoreError) {
            try log.write(batch.events, states: batch.states, deliveries: batch.deliveries)
        } catch {
            let refusal = ButtonsError.unavailable("the event log could not be written: \(error.description) (`buttond check` tells whether the database is damaged)", retryAfter: 1)
            let answers = batch.answers
            answering { for answer in answers { answer.reply(.failure(refusal)) } }
            let retry = clock.now() + 100
            for slot in batch.fired { timers.schedule(slot, at: retry) }
            return
        }
        for (_, entry) in batch.buttons {
            entry.slot.locked { entry.slot.machine = entry.machine }
            arm(entry.slot)
        }
        for (_, entry) in batch.sheets { entry.slot.locked { entry.slot.machine = entry.machine } }
        dispatcher.added(batch.deliveries)
        publisher.publish(batch.events)
        let (answers, events) = (batch.answers, batch.events)
        answering {
            for answer in answers { answer.reply(.success(Array(events[answer.events]))) }
        }
        observer.committed(batch.events, states: batch.states, answers: batch.answers.count)
    }

    /// Re-arms the slot's timer at its next deadline, mapped to the server clock.
    package func arm(_ slot: ButtonSlot) {
        guard !slot.removed, let deadline = slot.machine.nextDeadline else { return }
        timers.schedule(slot, at: deadline.saturatingSubtract(slot.machine.clockOffset))
    }

    private func fireDueTimers(into batch: inout Batch) {
        let now = clock.now()
        for slot in timers.popDue(now: now) where !slot.removed {
            var machine = batch.machine(of: slot)
            let gestures = machine.fireDue(now: now)
            guard !gestures.isEmpty else {
                arm(slot)  // a stale deadline: nothing was due
                continue
            }
            batch.fired.append(slot)
            batch.keep(machine, of: slot)
            let events = batch.append(gestures.map { ($0, .button(slot.id)) }, idPrefix: log.idPrefix)
            // A timer's deliveries are never refused for a full queue: the press was accepted.
            batch.deliveries += handlers.deliveries(for: Array(batch.events[events]), now: now)
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
