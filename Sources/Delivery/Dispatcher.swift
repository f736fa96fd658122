import ButtonStore
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

    /// What the workers run for one handler id: a handler (its secret's key decoded once) or
    /// a sender of the server's own (MQTT), with the policy made once.
    struct Target {
        enum Runner {
            case handler(Handler, key: [UInt8], scriptsDirectory: String)
            case sender(any DeliverySender)
        }

        var runner: Runner
        var enabled: Bool
        var ordered: Bool
        var kind: String
        var batchLimit: Int
        var policy: DeliveryPolicy
        /// What it shares its `DestinationSlots` with.
        var destination: String

        /// Whether an attempt could succeed now: a handler always, a sender of ours when it says so.
        var isReady: Bool {
            guard case .sender(let sender) = runner else { return true }
            return sender.isReady
        }
    }

    struct State {
        var specs: [String: Target] = [:]
        var queues: [String: HandlerQueue] = [:]
        var slots: DestinationSlots
        var running = 0
        var stopping = false
    }

    private let store: ButtonStore
    let onAttempt: @Sendable (Attempt) -> Void
    let userAgent: String
    public let concurrency: Int
    /// Attempts in flight to one destination at most (a quarter of `concurrency` by default).
    public var perDestination: Int { state.slots.limit }
    /// Multiplies the retry schedule (1 in production; tests shrink it).
    public let retryScale: Double
    /// Set once by `start`, before any worker exists.
    private(set) var rules = DestinationRules()
    let condition = Condition()
    var state: State
    let depthCounter = Atomic<Int>(0)
    let log: DeliveryLog
    /// What scripts run and leave behind, stopped with the dispatcher.
    let scripts = ScriptGroups(graceMs: ScriptRunner.killGraceMs)
    /// Set by `stop` once its wait is over: an attempt that ends after it is not recorded.
    let abandoned = Atomic<Bool>(false)

    public init(
        store: ButtonStore, concurrency: Int = 16, perDestination: Int? = nil, userAgent: String, retention: Int = 100_000,
        retryScale: Double = 1, onAttempt: @escaping @Sendable (Attempt) -> Void = { _ in }
    ) {
        self.store = store
        self.concurrency = concurrency
        state = State(slots: perDestination.map { DestinationSlots(limit: $0) } ?? DestinationSlots(workers: concurrency))
        self.userAgent = userAgent
        self.retryScale = retryScale
        self.onAttempt = onAttempt
        log = DeliveryLog(store: store, retention: retention)
    }

    /// Deliveries not yet finished (pending or in flight): what the bounded queue counts.
    public var depth: Int { depthCounter.load(ordering: .relaxed) }

    /// Unfinished deliveries dropped with their handler, since start.
    public var dropped: Int { droppedCounter.load(ordering: .relaxed) }
    private let droppedCounter = Atomic<Int>(0)

    // MARK: Handlers

    /// A handler was added or changed (or its secret, or whether it is enabled). A script
    /// handler without a scripts directory (this start) is not run: its deliveries wait.
    public func setHandler(_ handler: Handler, key: [UInt8], scriptsDirectory: String?) {
        let target: Target?
        if case .script = handler.action, scriptsDirectory == nil {
            target = nil
        } else {
            target = Target(
                runner: .handler(handler, key: key, scriptsDirectory: scriptsDirectory ?? ""), enabled: handler.enabled,
                ordered: handler.ordered, kind: handler.kind, batchLimit: 1,
                policy: DeliveryPolicy(
                    maxAttempts: Int(handler.maxAttempts), expireAfterMs: handler.expireAfterMs, retryScale: retryScale),
                destination: DestinationSlots.destination(of: handler))
        }
        condition.locked {
            state.specs[handler.id] = target
            condition.broadcast()
        }
    }

    /// A target of the server's own (MQTT publishing) under the handler id `id`: its
    /// deliveries go in order, up to `sender.batchLimit` at a time.
    public func setSender(_ sender: any DeliverySender, id: String, policy: DeliveryPolicy) {
        let target = Target(
            runner: .sender(sender), enabled: true, ordered: true, kind: sender.kind, batchLimit: max(1, sender.batchLimit),
            policy: policy, destination: "sender:" + id)
        condition.locked {
            state.specs[id] = target
            condition.broadcast()
        }
    }

    /// Unfinished deliveries of one handler id.
    public func pending(_ id: String) -> Int {
        condition.locked { state.queues[id]?.count ?? 0 }
    }

    /// Makes every pending delivery of `id` due now (a broker that is back).
    public func retryNow(_ id: String) {
        let now = Self.now()
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
            if rows.count == 1 { condition.signal() } else { condition.broadcast() }
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
    public func redeliver(_ id: Int64, now: Int64) throws(StoreError) -> RedeliverResult {
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
        if condition.locked({ state.specs[row.handler]?.isReady == false }) { return .notReady }
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
            condition.signal()
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
        condition.locked {
            var rows: [DeliveryRow] = []
            for (id, queue) in state.queues where handler == nil || handler == id {
                for row in queue.pending where (queue.inFlight == row.id) == (status == .inFlight) && row.id < (before ?? .max) {
                    rows.append(row)
                }
            }
            rows.sort { $0.id > $1.id }
            return Array(rows.prefix(limit))
        }
    }

    // MARK: Running

    /// Takes over what a previous run left unfinished. Runs before anything is added.
    public func load() throws(StoreError) {
        let rows = try store.pendingDeliveries()
        try log.load()
        added(rows)
    }

    /// Starts sending; webhooks go only where `rules` allow (checked on every connection).
    public func start(rules: DestinationRules) {
        self.rules = rules
        log.start()
        for index in 0..<concurrency {
            startThread(name: "buttond.send.\(index)") { [self] in work() }
        }
    }

    /// New work may be due: an idle worker looks now rather than at the next planned time.
    public func wake() {
        condition.locked { condition.signal() }
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
        let deadline = Self.now() + Int64(seconds * 1000)
        while state.running > 0 && Self.now() < deadline { _ = condition.wait(seconds: Double(deadline - Self.now()) / 1000) }
        condition.unlock()
        abandoned.store(true, ordering: .sequentiallyConsistent)
        log.stop()
        scripts.stopAll()
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
