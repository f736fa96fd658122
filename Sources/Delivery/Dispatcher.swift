import Outbox
import FoundationEssentials
import Platform
import ThreadSupport
import Synchronization

/// Sends what the delivery log holds: each handler's deliveries in event order, one in flight
/// per handler, at most `concurrency` at once and `perDestination` of them to one destination
/// (`DestinationSlots`), retried as `DeliveryPolicy` decides, resumed
/// after a restart.
///
/// What is not finished lives in memory (loaded once at start, then fed by `added`), so the
/// dispatcher never reads the database to find work and never writes to mark an attempt as
/// started: the store sees a delivery when it is made and when an attempt ends.
///
/// Every target is a `DeliverySender` (a handler's, made by `HandlerSenders`, or one of the
/// server's own): the dispatcher decides, one thread starts attempts and takes their
/// outcomes, and the senders carry them out without holding it (webhooks on the one HTTP
/// event loop, scripts and other waiting senders on threads of their own).
public final class Dispatcher: @unchecked Sendable {  // `state` is guarded by `condition`
    public struct Attempt: Sendable {
        /// The delivery as this attempt leaves it.
        public var delivery: DeliveryRow
        public var kind: String
        public var number: Int
        /// Milliseconds since the epoch.
        public var startedAt: Int64
        public var result: AttemptResult
        public var decision: DeliveryPolicy.Decision
    }

    /// What one handler id's deliveries go through, with the policy made once.
    struct Target {
        var sender: any DeliverySender
        var enabled: Bool
        var ordered: Bool
        var batchLimit: Int
        var policy: DeliveryPolicy
        /// What it shares its `DestinationSlots` with (the sender's, asked once).
        var destination: String

        init(sender: any DeliverySender, enabled: Bool, ordered: Bool, policy: DeliveryPolicy) {
            self.sender = sender
            self.enabled = enabled
            self.ordered = ordered
            self.policy = policy
            batchLimit = max(1, sender.batchLimit)
            destination = sender.destination
        }
    }

    struct State {
        var specs: [String: Target] = [:] {
            didSet { destinations = Set(specs.values.map(\.destination)) }
        }
        /// Every target's destination: when none has room, nothing can start (and the choice
        /// of the next delivery need not look at every handler to find that out).
        private(set) var destinations: Set<String> = []
        var queues: [String: HandlerQueue] = [:]
        var slots: DestinationSlots
        /// Attempts started and not yet taken back.
        var running = 0
        /// Runs of attempts that ended, for the dispatcher's thread to record and finish.
        var ended: [Ended] = []
        var stopping = false
        /// Set by `stop` once its wait is over: the thread ends whatever is still running.
        var stopped = false
    }

    private let store: any DeliveryStore
    /// What every schedule, expiry and attempt's time is read from; a test's own clock moves
    /// them (and `wake` has the thread look at it again).
    public let clock: Clock
    /// Makes the handlers' senders.
    let senders: HandlerSenders
    /// Attempts in flight at most, of every kind.
    public let concurrency: Int
    /// Attempts in flight to one destination at most (a quarter of `concurrency` by default).
    public var perDestination: Int { state.slots.limit }
    /// Multiplies the retry schedule (1 in production; tests shrink it).
    public let retryScale: Double
    let condition = Condition()
    var state: State
    let depthCounter = Atomic<Int>(0)
    let log: DeliveryLog
    /// Set by `stop` once its wait is over: an attempt that ends after it is not recorded.
    let abandoned = Atomic<Bool>(false)

    public init(
        store: any DeliveryStore, clock: Clock, concurrency: Int = 16, perDestination: Int? = nil, userAgent: String,
        retention: Int = 100_000, retryScale: Double = 1
    ) {
        self.store = store
        self.clock = clock
        self.concurrency = concurrency
        state = State(slots: perDestination.map { DestinationSlots(limit: $0) } ?? DestinationSlots(workers: concurrency))
        senders = HandlerSenders(userAgent: userAgent, clock: clock)
        self.retryScale = retryScale
        log = DeliveryLog(store: store, retention: retention)
    }

    /// Deliveries not yet finished (pending or in flight): what the bounded queue counts.
    public var depth: Int { depthCounter.load(ordering: .relaxed) }

    /// Unfinished deliveries dropped with their handler, since start.
    public var dropped: Int { droppedCounter.load(ordering: .relaxed) }
    private let droppedCounter = Atomic<Int>(0)

    // MARK: Handlers

    /// A handler was added or changed (or its secret, or whether it is enabled): its
    /// deliveries, under handler id `id`, do `action` (`key`: its webhook secret's bytes). A
    /// script without a scripts directory (this start) is not run: its deliveries wait.
    public func setHandler(
        _ id: String, action: DeliveryAction, key: [UInt8], scriptsDirectory: String?, enabled: Bool, ordered: Bool,
        maxAttempts: Int64, expireAfterMs: Int64?
    ) {
        let target = senders.sender(for: action, key: key, scriptsDirectory: scriptsDirectory).map { sender in
            Target(
                sender: sender, enabled: enabled, ordered: ordered,
                policy: DeliveryPolicy(maxAttempts: Int(maxAttempts), expireAfterMs: expireAfterMs, retryScale: retryScale))
        }
        set(target, id: id)
    }

    /// The deliveries of handler id `id` go through `sender` (a target of the server's own,
    /// such as MQTT publishing, or a test's): in order unless `ordered` is false, up to
    /// `sender.batchLimit` at a time.
    public func setSender(_ sender: any DeliverySender, id: String, policy: DeliveryPolicy, ordered: Bool = true) {
        set(Target(sender: sender, enabled: true, ordered: ordered, policy: policy), id: id)
    }

    private func set(_ target: Target?, id: String) {
        condition.locked {
            state.specs[id] = target
            condition.broadcast()
        }
    }

    /// The `kind` of the sender that target `id`'s deliveries go through, if it has one now.
    public func kind(of id: String) -> String? {
        condition.locked { state.specs[id]?.sender.kind }
    }

    /// Unfinished deliveries of one handler id.
    public func pending(_ id: String) -> Int {
        condition.locked { state.queues[id]?.count ?? 0 }
    }

    /// Makes every pending delivery of `id` due now (a broker that is back).
    public func retryNow(_ id: String) {
        let now = clock.now()
        condition.locked {
            guard let queue = state.queues[id] else { return }
            for row in Array(queue.pending) where row.nextAttemptAt > now {
                var due = row
                due.nextAttemptAt = now
                state.queues[id]?[row.id] = due
            }
            condition.broadcast()
        }
    }

    /// Handlers were deleted (their log went with them): their pending deliveries are dropped.
    /// Returns how many were dropped.
    @discardableResult
    public func removeHandlers(_ ids: [String]) -> Int {
        guard !ids.isEmpty else { return 0 }
        let dropped = condition.locked {
            var dropped = 0
            for id in ids {
                state.specs[id] = nil
                if let queue = state.queues.removeValue(forKey: id) { dropped += queue.count }
            }
            return dropped
        }
        depthCounter.subtract(dropped, ordering: .relaxed)
        droppedCounter.add(dropped, ordering: .relaxed)
        log.recount()
        return dropped
    }

    // MARK: Deliveries

    /// Deliveries just committed to the log.
    public func added(_ rows: [DeliveryRow]) {
        guard !rows.isEmpty else { return }
        depthCounter.add(rows.count, ordering: .relaxed)
        condition.locked {
            for row in rows { state.queues[row.handler, default: HandlerQueue()].insert(row) }
            condition.broadcast()
        }
    }

    public enum RedeliverResult: Sendable {
        case queued(DeliveryRow)
        case notFound
        case inFlight
        /// Its target cannot send now (MQTT with the broker away): it goes when it can.
        case notReady
    }

    /// One more attempt of a delivery, now: a finished one becomes pending again, a pending
    /// one waiting for its retry is due at once.
    public func redeliver(_ id: Int64, now: Int64) throws -> RedeliverResult {
        // An attempt that has just ended is recorded (the log says `ok`) a moment before its
        // worker lets go of it: a redeliver asked for then waits for that, up to a second.
        var inFlight = true
        for _ in 0..<200 {
            inFlight = condition.locked { state.queues.values.contains { $0.inFlight == id } }
            guard inFlight else { break }
            usleep(5_000)
        }
        if inFlight { return .inFlight }
        guard var row = try store.delivery(id: id) else { return .notFound }
        if condition.locked({ state.specs[row.handler]?.sender.isReady == false }) { return .notReady }
        guard try store.reschedule(delivery: id, at: now) else { return .notFound }
        if row.status.isFinished { log.reopened() }
        row.status = .pending
        row.nextAttemptAt = now
        condition.locked {
            if state.queues[row.handler]?[id] != nil {
                state.queues[row.handler]?[id]?.nextAttemptAt = now
            } else {
                state.queues[row.handler, default: HandlerQueue()].insert(row)
                depthCounter.add(1, ordering: .relaxed)
            }
            condition.broadcast()
        }
        return .queued(row)
    }

    /// A row as it stands now: `in_flight` while attempted, with the delivery that holds it
    /// back if its handler delivers in order and an earlier one waits for its retry.
    public func live(_ row: DeliveryRow) -> (status: DeliveryStatus, waitingFor: Int64?) {
        guard row.status == .pending else { return (row.status, nil) }
        return condition.locked {
            guard let queue = state.queues[row.handler] else { return (row.status, nil) }
            if queue.inFlight == row.id { return (.inFlight, nil) }
            guard state.specs[row.handler]?.ordered ?? true, let head = queue.first, head.id < row.id,
                head.attempts > 0, queue.inFlight == nil
            else { return (row.status, nil) }
            return (row.status, head.id)
        }
    }

    /// Unfinished deliveries newest first, from memory: `pending` or `inFlight` ones.
    public func unfinished(_ status: DeliveryStatus, handler: String?, before: Int64?, limit: Int) -> [DeliveryRow] {
        unfinished(handlers: handler.map { [$0] }, before: before, limit: limit) { row, inFlight in inFlight == (status == .inFlight) }
    }

    /// Unfinished deliveries newest first, from memory, of `handlers` (nil: all), that `keep`
    /// takes (given whether each is in flight): the log's filters over what is not finished.
    public func unfinished(
        handlers: Set<String>?, before: Int64?, limit: Int, where keep: (DeliveryRow, _ inFlight: Bool) -> Bool
    ) -> [DeliveryRow] {
        condition.locked {
            var rows: [DeliveryRow] = []
            for (id, queue) in state.queues where handlers?.contains(id) ?? true {
                for row in queue.pending where row.id < (before ?? .max) && keep(row, queue.inFlight == row.id) {
                    rows.append(row)
                }
            }
            rows.sort { $0.id > $1.id }
            return Array(rows.prefix(limit))
        }
    }

    // MARK: Running

    /// Takes over what a previous run left unfinished. Runs before anything is added.
    public func load() throws {
        let rows = try store.pendingDeliveries()
        try log.load()
        added(rows)
    }

    /// Starts sending; webhooks and OSC messages go only where `rules` allow (checked on every
    /// connection).
    /// Starts the dispatcher's thread. `onAttempt` hears every attempt's outcome (the way an
    /// outcome goes back up: metrics, health, a 410's disable); the thread holds it, so the
    /// parts it needs, made after the dispatcher, are handed in here rather than filled in later.
    public func start(rules: DestinationRules, onAttempt: @escaping @Sendable (Attempt) -> Void = { _ in }) {
        senders.rules = rules
        log.start()
        senders.start()
        startThread(name: "buttond.dispatch", nice: DeliveryThreads.nice) { [self] in run(onAttempt: onAttempt) }
    }

    /// New work may be due (or a test moved the clock): the dispatcher looks now rather than at
    /// the next planned time.
    public func wake() {
        condition.locked { condition.broadcast() }
    }

    /// Stops taking new deliveries and waits up to `seconds` for running ones to finish and be
    /// written; what is left stays pending in the log for the next start. Then scripts still
    /// running, and whatever scripts left in their groups, get SIGTERM and, after the grace,
    /// SIGKILL: nothing of theirs outlives buttond. An attempt cut off so is not recorded (its
    /// delivery goes again at the next start, as a webhook still in flight does).
    public func stop(waitingUpTo seconds: Double) {
        condition.lock()
        state.stopping = true
        condition.broadcast()
        // Measured on the monotonic clock; a wait that runs out ends it, so a clock that stands
        // still (a test's) still lets the stop end after `seconds`.
        let deadline = clock.monotonic() + seconds
        while state.running > 0 {
            let left = deadline - clock.monotonic()
            guard left > 0, condition.wait(seconds: left) else { break }
        }
        state.stopped = true
        condition.broadcast()
        condition.unlock()
        abandoned.store(true, ordering: .sequentiallyConsistent)
        log.stop()
        senders.stop()
    }
}
