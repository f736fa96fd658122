import ButtonStore
import FoundationEssentials
import Glibc
import ThreadSupport
import Synchronization

/// Sends what the delivery log holds: each handler's deliveries in event order, one in flight
/// per handler, at most `concurrency` at once, retried as `DeliveryPolicy` decides, resumed
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

    /// A handler as the workers run it: its secret's key decoded once, its policy made once.
    struct Target {
        var handler: Handler
        var key: [UInt8]
        var scriptsDirectory: String
        var policy: DeliveryPolicy
    }

    struct State {
        var specs: [String: Target] = [:]
        var queues: [String: HandlerQueue] = [:]
        var running = 0
        var stopping = false
    }

    private let store: ButtonStore
    private let onAttempt: @Sendable (Attempt) -> Void
    private let userAgent: String
    public let concurrency: Int
    /// Multiplies the retry schedule (1 in production; tests shrink it).
    public let retryScale: Double
    /// Set once by `start`, before any worker exists.
    private var rules = DestinationRules()
    private let condition = Condition()
    private var state = State()
    private let depthCounter = Atomic<Int>(0)
    let log: DeliveryLog

    public init(
        store: ButtonStore, concurrency: Int = 16, userAgent: String, retention: Int = 100_000, retryScale: Double = 1,
        onAttempt: @escaping @Sendable (Attempt) -> Void = { _ in }
    ) {
        self.store = store
        self.concurrency = concurrency
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
                handler: handler, key: key, scriptsDirectory: scriptsDirectory ?? "",
                policy: DeliveryPolicy(
                    maxAttempts: Int(handler.maxAttempts), expireAfterMs: handler.expireAfterMs, retryScale: retryScale))
        }
        condition.locked {
            state.specs[handler.id] = target
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
    }

    /// One more attempt of a delivery, now: a finished one becomes pending again, a pending
    /// one waiting for its retry is due at once.
    public func redeliver(_ id: Int64, now: Int64) throws(StoreError) -> RedeliverResult {
        let inFlight = condition.locked { state.queues.values.contains { $0.inFlight == id } }
        if inFlight { return .inFlight }
        guard var row = try store.delivery(id: id) else { return .notFound }
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
            guard state.specs[row.handler]?.handler.ordered ?? true, let head = queue.first, head.id < row.id,
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
    /// written; what is left stays pending in the log for the next start.
    public func stop(waitingUpTo seconds: Double) {
        condition.lock()
        state.stopping = true
        condition.broadcast()
        let deadline = Self.now() + Int64(seconds * 1000)
        while state.running > 0 && Self.now() < deadline { _ = condition.wait(seconds: Double(deadline - Self.now()) / 1000) }
        condition.unlock()
        log.stop()
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// A worker thread: takes the oldest delivery that may go now (a free handler's next due
    /// one), sends it, hands the outcome to the log, and looks again; with nothing due, it
    /// sleeps until the next retry or until woken. Workers pull: no thread hands work over.
    private func work() {
        // Input comes first: a delivery may wait a little (it is durable in the log), a press
        // must not. Lowered from the thread itself: what it spawns (scripts) inherits it.
        setThreadNice(5)
        let sender = WebhookSender(rules: rules)
        condition.lock()
        while !state.stopping {
            let now = Self.now()
            let (next, wakeAt) = nextDue(now: now)
            guard let (row, spec) = next else {
                _ = condition.wait(seconds: Double(min(wakeAt - now, 60_000)) / 1000)
                continue
            }
            state.queues[row.handler]?.inFlight = row.id
            state.running += 1
            condition.unlock()
            let attempt = self.attempt(row, spec, sender: sender)
            log.record(attempt)
            onAttempt(attempt)
            condition.lock()
            finish(attempt)
        }
        condition.unlock()
    }

    /// With `condition` held: the oldest delivery that may go now, and when to look again.
    private func nextDue(now: Int64) -> (next: (DeliveryRow, Target)?, wakeAt: Int64) {
        var wakeAt = now + 60_000
        var best: (id: Int64, handler: String, spec: Target)?
        for (handler, queue) in state.queues where queue.inFlight == nil {
            guard let head = queue.slots.first, head.id < best?.id ?? .max || head.nextAttemptAt > now,
                let spec = state.specs[handler], spec.handler.enabled
            else { continue }
            for slot in queue.slots {
                if slot.nextAttemptAt <= now {
                    if slot.id < best?.id ?? .max { best = (slot.id, handler, spec) }
                    break
                }
                wakeAt = min(wakeAt, slot.nextAttemptAt)
                if spec.handler.ordered { break }
            }
        }
        guard let best, let row = state.queues[best.handler]?[best.id] else { return (nil, wakeAt) }
        return ((row, best.spec), wakeAt)
    }

    private func attempt(_ row: DeliveryRow, _ spec: Target, sender: WebhookSender) -> Attempt {
        let number = row.attempts + 1
        let startedAt = Self.now()
        var result: AttemptResult
        if spec.policy.isExpired(createdAt: row.createdAt, now: startedAt) {
            result = AttemptResult(outcome: .expired, output: "not sent: older than expireAfterMs (\(spec.policy.expireAfterMs ?? 0) ms)")
        } else {
            let fields = Placeholders(row.event)
            switch spec.handler.action {
            case .webhook(let webhook):
                result = sender.send(webhook, key: spec.key, delivery: row, fields: fields, userAgent: userAgent)
            case .script(let script):
                result = ScriptRunner.run(
                    script, in: spec.scriptsDirectory, arguments: script.args.map(fields.substitute),
                    environment: ScriptRunner.environment(
                        event: row.event.json, type: row.event.type, button: row.event.source, seq: row.event.seq,
                        attempt: number),
                    stdin: row.payload
                ).result
            }
            result.durationMs = Self.now() - startedAt
        }
        let decision = spec.policy.decide(
            result, attempt: number, createdAt: row.createdAt, now: Self.now(), jitter: Double.random(in: -0.2...0.2))
        var done = row
        done.attempts = number
        done.status = decision.status
        if case .retry(let at) = decision { done.nextAttemptAt = at }
        return Attempt(
            delivery: done, kind: spec.handler.kind, number: number, startedAt: startedAt, result: result, decision: decision)
    }

    /// With `condition` held, after an attempt: the handler may take its next delivery.
    private func finish(_ attempt: Attempt) {
        let row = attempt.delivery
        do {
            state.running -= 1
            if state.stopping { condition.broadcast() }
            // Deleted with its handler meanwhile: already dropped from the count.
            guard state.queues[row.handler]?.inFlight == row.id else { return }
            state.queues[row.handler]?.inFlight = nil
            if row.status.isFinished {
                state.queues[row.handler]?.remove(row.id)
                depthCounter.subtract(1, ordering: .relaxed)
            } else {
                state.queues[row.handler]?[row.id] = row
            }
            if attempt.decision == .finishAndDisable { state.specs[row.handler]?.handler.enabled = false }
            if state.queues[row.handler]?.isEmpty == true { state.queues[row.handler] = nil }
        }
    }
}
