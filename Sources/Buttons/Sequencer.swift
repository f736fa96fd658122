import ButtonEngine
import ButtonStore
import JSON
import ThreadSupport

/// The one owner of every button's and sheet's live state, and the one thread that changes it.
/// Request threads (and the MQTT and OSC bridges) parse and validate, `submit` a `Command`
/// with a reply and suspend their connection; that is all they share with this thread: the
/// `Inbox`, behind one lock. The thread takes everything submitted, lets `SequencerState`
/// decide the turn (the timers that are due first, then the commands in order, on copies of
/// the machines: a `Batch`), and performs it: answers the refused, writes the batch (events,
/// states, deliveries) in one transaction and only then keeps the new machines, hands the
/// deliveries on, publishes the events and answers each caller with exactly its own events.
/// What was submitted while it wrote is the next turn: under load nobody sleeps between one
/// commit and the next, and that is the group commit. If the store refuses a batch nothing of
/// it happened: its callers get 503, and no seq number is used.
package final class Sequencer: @unchecked Sendable {  // `inbox` is guarded by `lock`; `state` is the sequencer thread's (before `start`, the loading thread's)
    /// A caller's answer: its own events, a slice of the batch's (no array made for each
    /// caller, its events retained again), or why it was refused.
    package typealias Reply = @Sendable (Result<ArraySlice<ControlEvent>, ButtonsError>) -> Void

    /// The one lock request threads share with the sequencer's thread, and where it sleeps.
    private let lock = Condition()
    private var inbox = Inbox()
    /// The thread runs (guarded by `lock`).
    private var running = false
    /// The decisions: timers, seq numbers, who sent what. The sequencer thread's alone.
    var state: SequencerState

    package let registry: Registry
    package let log: EventLog
    package let publisher: StreamPublisher
    package let handlers: any DeliveryRules
    package let dispatcher: any DeliveryQueue
    package let observer: any CommitObserver
    package let clock: Clock
    /// How a batch's callers are answered together.
    let grouping: any AnswerGrouping

    package init(
        registry: Registry, log: EventLog, publisher: StreamPublisher, handlers: any DeliveryRules,
        dispatcher: any DeliveryQueue, observer: any CommitObserver, clock: Clock, maxQueue: Int, maxFutureMs: Int64 = 60_000,
        answers grouping: any AnswerGrouping = AnswersOneByOne()
    ) {
        self.grouping = grouping
        self.registry = registry
        self.log = log
        self.publisher = publisher
        self.handlers = handlers
        self.dispatcher = dispatcher
        self.observer = observer
        self.clock = clock
        let environment = SequencerState.Environment(
            button: { id throws(ButtonsError) in try registry.button(id) },
            sheet: { id throws(ButtonsError) in try registry.sheet(id) },
            deliveries: { events, now in handlers.deliveries(for: events, now: now) },
            queueDepth: { dispatcher.depth }, idPrefix: log.idPrefix, maxQueue: maxQueue, maxFutureMs: maxFutureMs)
        state = SequencerState(environment: environment, nextSeq: log.nextSeq)
    }

    package func start() {
        state.nextSeq = log.nextSeq
        lock.locked {
            inbox.start()
            running = true
        }
        // Above the request threads (nice -10, where the process may raise it): a timer and a
        // commit do not wait behind other programs' busy threads (at nice 0 or -3, beside two
        // busy loops, long presses were late by 5.5-8.2 ms at p99). Woken by a submit, it gives
        // way once (`next`), or it would take the presses one or two a commit. docs/performance.md,
        // issue 43.
        startThread(name: "buttond.sequencer", nice: -10) { [self] in run() }
    }

    /// Finishes what is queued, then stops the thread.
    package func stop() {
        lock.locked {
            guard running else { return }
            if inbox.stop() { lock.signal() }
            while running { lock.wait() }
        }
    }

    /// Queues `command`; `reply` is called once, on the sequencer thread: with its events once
    /// they are committed, or with the error that refused it.
    package func submit(_ command: Command, by sender: String? = nil, reply: @escaping Reply) {
        let admission = lock.locked { inbox.submit(.command(SequencerState.Submission(command, by: sender, reply: reply))) }
        switch admission {
        case .refused: reply(.failure(.unavailable("the server is shutting down", retryAfter: 5)))
        // Signalled once the lock is released: the sequencer (nice -10) preempted a request
        // thread that woke it holding the lock, then waited for that lock itself, and each
        // wake-up cost four switches instead of one.
        case .queuedWake: lock.signal()
        case .queued: break
        }
    }

    /// Runs `body` on the sequencer thread, between batches, and waits for it: for the rare
    /// changes of definitions (update, delete, import) that must not interleave with input.
    /// Before `start` (loading) and after `stop` it runs on the caller's thread.
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
        switch lock.locked({ inbox.submit(.exclusive(job)) }) {
        case .refused: job()
        case .queuedWake: lock.signal()
        case .queued: break
        }
        return try done.locked { () throws(ButtonsError) -> T in
            while result == nil { done.wait() }
            return try result!.get()
        }
    }

    private func run() {
        while let work = next() { perform(work) }
        lock.locked {
            running = false
            lock.broadcast()
        }
    }

    /// Waits for work, a due timer or the stop: what is queued (empty when only a timer is
    /// due), or nil once stopping with nothing queued.
    private func next() -> [Inbox.Work]? {
        lock.lock()
        defer { lock.unlock() }
        while true {
            // No linger for more to come (a wait of 0.2 ms for up to 32 cost 6-15 % of the
            // presses a second): after giving way once on waking, a turn takes what came.
            if !inbox.isEmpty { return inbox.take() }
            if inbox.stopping { return nil }
            let deadline = state.nextDeadline
            let wait = deadline.map { Double($0) - clock.precise() }
            if let wait, wait <= 0 { return [] }
            guard inbox.maySleep() else { continue }
            if let wait {
                lock.wait(seconds: wait / 1000)
            } else {
                lock.wait()
            }
            inbox.woke()
            if inbox.shouldGiveWay(timerDue: state.nextDeadline.map { Double($0) <= clock.precise() } ?? false) {
                lock.unlock()
                yieldThread()
                lock.lock()
            }
        }
    }

    /// Performs what was taken: commands in turns, each exclusive job once everything before
    /// it is committed (a job that disabled buttons has their ends applied right after it).
    private func perform(_ work: [Inbox.Work]) {
        var commands: [SequencerState.Submission] = []
        commands.reserveCapacity(work.count)
        for item in work {
            switch item {
            case .command(let submission):
                commands.append(submission)
            case .exclusive(let job):
                turn(commands)
                commands.removeAll()
                job()
                commands = endDisabled()
            }
        }
        turn(commands)
    }

    /// One turn, decided by the state and performed here.
    private func turn(_ commands: [SequencerState.Submission]) {
        let batch = state.turn(commands, now: clock.now())
        if !batch.refusals.isEmpty {
            grouping.together { for refusal in batch.refusals { refusal.reply(.failure(refusal.error)) } }
        }
        guard batch.needsWrite else { return }
        if commit(batch) {
            state.committed(batch)
        } else {
            state.failed(batch, now: clock.now())
        }
    }

    /// Writes the batch and, once it is durable, keeps its machines, hands its deliveries on,
    /// publishes its events and answers its callers. False if the store refused it (callers
    /// answered 503, seq unused).
    private func commit(_ batch: Batch) -> Bool {
        let states = batch.states
        do throws(StoreError) {
            try log.write(batch.events, states: states, deliveries: batch.deliveries)
        } catch {
            let refusal = ButtonsError.unavailable("the event log could not be written: \(error.description) (`buttond check` tells whether the database is damaged)", retryAfter: 1)
            grouping.together { for answer in batch.answers { answer.reply(.failure(refusal)) } }
            return false
        }
        for (_, entry) in batch.buttons { entry.slot.locked { entry.slot.machine = entry.machine } }
        for (_, entry) in batch.sheets { entry.slot.locked { entry.slot.machine = entry.machine } }
        dispatcher.added(batch.deliveries)
        publisher.publish(batch.events)
        let events = batch.events
        grouping.together { for answer in batch.answers { answer.reply(.success(events[answer.events])) } }
        observer.committed(batch.events, states: states, answers: batch.answers.count)
        return true
    }
}
