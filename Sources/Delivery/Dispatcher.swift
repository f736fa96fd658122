import ButtonStore
import FoundationEssentials
import Glibc
import Dispatch
import MicroHTTP
import ThreadSupport
import Synchronization

/// Sends what the outbox holds: each handler's deliveries in event order, one in flight per
/// handler, at most `concurrency` at once, retried on the schedule, resumed after a restart.
public final class Dispatcher: @unchecked Sendable {  // `inFlight`, `running`, `stopping` are guarded by `condition`
    public struct Attempt: Sendable {
        public var delivery: String
        public var handler: String
        /// `webhook` or `script`.
        public var kind: String
        public var number: Int
        public var result: AttemptResult
        public var status: String
    }

    private let store: ButtonStore
    private let resolve: @Sendable (String) -> HandlerSpec?
    private let disable: @Sendable (String) -> Void
    private let onAttempt: @Sendable (Attempt) -> Void
    private let userAgent: String
    public let concurrency: Int
    /// Multiplies the retry schedule (1 in production; tests shrink it).
    private let retryScale: Double
    private let condition = Condition()
    private var inFlight: Set<String> = []
    /// Handlers that may have pending deliveries: only their heads are looked up.
    private var active: Set<String> = []
    /// Grows with every `added`: a handler found idle is dropped from `active` only if nothing
    /// was added since the look started.
    private var additions = 0
    private var running = 0
    private var stopping = false
    private var woken = false
    private let depthCounter = Atomic<Int>(0)
    /// Attempts handed to the worker threads; guarded by `jobsReady`.
    private var jobs: [(OutboxRow, HandlerSpec)] = []
    private var workersDone = false
    private let jobsReady = Condition()
    /// Finished attempts waiting to be written, and the group commit that writes them: the
    /// first worker to find no write running writes everything queued in one transaction.
    private let recording = Condition()
    private var toRecord: [ButtonStore.FinishedAttempt] = []
    private var recordingBusy = false
    private var recordTickets = 0
    private var recordedThrough = 0

    public init(
        store: ButtonStore, concurrency: Int = 16, userAgent: String, retryScale: Double = 1,
        resolve: @escaping @Sendable (String) -> HandlerSpec?,
        disable: @escaping @Sendable (String) -> Void,
        onAttempt: @escaping @Sendable (Attempt) -> Void = { _ in }
    ) {
        self.store = store
        self.concurrency = concurrency
        self.userAgent = userAgent
        self.retryScale = retryScale
        self.resolve = resolve
        self.disable = disable
        self.onAttempt = onAttempt
    }

    /// Deliveries not yet finished (pending or in flight): what the bounded queue counts.
    public var depth: Int { depthCounter.load(ordering: .relaxed) }

    /// Counts deliveries added to the outbox (by a commit, a test or a redeliver) and notes
    /// their handlers as having work; `newlyQueued` is false for a redelivery of a pending row.
    public func added(_ rows: [OutboxRow], newlyQueued: Bool = true) {
        if newlyQueued { depthCounter.add(rows.count, ordering: .relaxed) }
        condition.lock()
        for row in rows { active.insert(row.handler) }
        additions += 1
        condition.unlock()
    }

    /// Resumes what a previous run left pending or in flight, then starts sending.
    public func start() throws(StoreError) {
        _ = try store.resetInFlight()
        depthCounter.store(try store.outboxDepth(), ordering: .relaxed)
        active = Set(try store.pendingHandlers())
        startThread(name: "buttond.dispatch") { [self] in loop() }
        for index in 0..<concurrency {
            startThread(name: "buttond.send.\(index)") { [self] in work() }
        }
    }

    /// New work may be due: look now rather than at the next planned time.
    public func wake() {
        condition.lock()
        woken = true
        condition.signal()
        condition.unlock()
    }

    /// Stops taking new deliveries and waits up to `seconds` for running ones to finish; what
    /// is left stays pending in the outbox for the next start.
    public func stop(waitingUpTo seconds: Double) {
        condition.lock()
        stopping = true
        condition.broadcast()
        let deadline = Self.now() + Int64(seconds * 1000)
        while running > 0 && Self.now() < deadline { condition.wait(seconds: Double(deadline - Self.now()) / 1000) }
        condition.unlock()
        jobsReady.lock()
        workersDone = true
        jobsReady.broadcast()
        jobsReady.unlock()
    }

    private static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    private func loop() {
        condition.lock()
        while !stopping {
            woken = false
            condition.unlock()
            let nextWake = dispatchDue()
            condition.lock()
            if stopping { break }
            if woken { continue }
            condition.wait(seconds: Double(nextWake - Self.now()) / 1000)
        }
        condition.unlock()
    }

    /// Starts every head that may go now; returns when to look again.
    private func dispatchDue() -> Int64 {
        let now = Self.now()
        var next = now + 1000
        condition.lock()
        let candidates = active.subtracting(inFlight)
        let seen = additions
        condition.unlock()
        let heads: [OutboxRow]
        do {
            heads = try store.pendingHeads(handlers: Array(candidates))
        } catch {
            return now + 200
        }
        let withWork = Set(heads.map(\.handler))
        let idle = candidates.filter { !withWork.contains($0) }
        if !idle.isEmpty {
            condition.lock()
            if additions == seen { for handler in idle where !inFlight.contains(handler) { active.remove(handler) } }
            condition.unlock()
        }
        condition.lock()
        let free = concurrency - running
        condition.unlock()
        var starting: [(OutboxRow, HandlerSpec)] = []
        for head in heads.sorted(by: { $0.eventSeq < $1.eventSeq }) {
            if starting.count >= free {
                next = now + 1000  // a finishing worker wakes the loop sooner
                break
            }
            guard let spec = resolve(head.handler), spec.enabled else { continue }
            if head.nextAttemptAt > now {
                next = min(next, head.nextAttemptAt)
                continue
            }
            starting.append((head, spec))
        }
        // One transaction marks every delivery this pass starts.
        guard !starting.isEmpty, (try? store.markInFlight(starting.map(\.0))) != nil else { return next }
        condition.lock()
        for (head, _) in starting { inFlight.insert(head.handler) }
        running += starting.count
        condition.unlock()
        jobsReady.lock()
        jobs += starting
        jobsReady.broadcast()
        jobsReady.unlock()
        return next
    }

    /// A worker thread: takes attempts one at a time, with its own webhook connection.
    private func work() {
        // Input comes first: a delivery may wait a little (it is durable in the outbox), a
        // press must not. Lowered from the thread itself: what it spawns (scripts) inherits it.
        setThreadNice(5)
        let sender = WebhookSender()
        while true {
            jobsReady.lock()
            while jobs.isEmpty && !workersDone { jobsReady.wait() }
            guard !jobs.isEmpty else {
                jobsReady.unlock()
                return
            }
            let (row, spec) = jobs.removeFirst()
            jobsReady.unlock()
            attempt(row, spec, sender: sender)
            condition.lock()
            inFlight.remove(row.handler)
            running -= 1
            woken = true
            condition.broadcast()
            condition.unlock()
        }
    }

    private func attempt(_ row: OutboxRow, _ spec: HandlerSpec, sender: WebhookSender) {
        let number = row.attempts + 1
        let startedAt = Self.now()
        var result: AttemptResult
        if let expire = spec.expireAfterMs, startedAt > row.createdAt + expire {
            result = AttemptResult(outcome: .expired, output: "not sent: older than expireAfterMs (\(expire) ms)")
        } else {
            switch spec.action {
            case .webhook(let webhook):
                result = sender.send(webhook, deliveryID: row.id, body: row.body, userAgent: userAgent)
            case .script(let script):
                let event = EventFields(row.body)
                result = ScriptRunner.run(
                    script, arguments: script.args.map(event.substitute),
                    environment: ScriptRunner.environment(
                        event: row.body, type: event.type, button: event.source, seq: event.seq, attempt: number),
                    stdin: row.body
                ).result
            }
            result.durationMs = Self.now() - startedAt
        }
        let status: String
        var nextAttemptAt = row.nextAttemptAt
        switch result.outcome {
        case .ok: status = "ok"
        case .expired: status = "expired"
        default:
            if result.statusCode == 410 {
                status = "failed"
                disable(row.handler)
            } else if number >= spec.maxAttempts {
                status = "failed"
            } else {
                status = "pending"
                if let seconds = result.retryAfterSeconds, result.statusCode == 429 || result.statusCode == 503 {
                    nextAttemptAt = Self.now() + Int64(Double(min(max(seconds, 0), RetryAfter.maximumSeconds) * 1000) * retryScale)
                } else {
                    nextAttemptAt = Self.now() + Int64(Double(RetrySchedule.delay(afterAttempt: number)) * retryScale)
                }
            }
        }
        record(
            ButtonStore.FinishedAttempt(
                StoredAttempt(
                    delivery: row.id, number: number, startedAt: startedAt, durationMs: result.durationMs,
                    outcome: result.outcome.rawValue, statusCode: result.statusCode, exitCode: result.exitCode,
                    output: result.output),
                status: status, nextAttemptAt: nextAttemptAt))
        if status != "pending" { depthCounter.subtract(1, ordering: .relaxed) }
        let kind: String
        if case .script = spec.action { kind = "script" } else { kind = "webhook" }
        onAttempt(Attempt(delivery: row.id, handler: row.handler, kind: kind, number: number, result: result, status: status))
    }
}

extension Dispatcher {
    /// Writes a finished attempt, together with any others finished meanwhile; returns once
    /// it is stored, so the handler's next delivery is only looked up after it.
    fileprivate func record(_ item: ButtonStore.FinishedAttempt) {
        recording.lock()
        recordTickets += 1
        let ticket = recordTickets
        toRecord.append(item)
        while recordedThrough < ticket {
            if recordingBusy {
                recording.wait()
                continue
            }
            recordingBusy = true
            let batch = toRecord
            let through = recordTickets
            toRecord = []
            recording.unlock()
            try? store.finishAttempts(batch)
            recording.lock()
            recordedThrough = through
            recordingBusy = false
            recording.broadcast()
        }
        recording.unlock()
    }
}

/// The event fields a script's argument placeholders and environment use.
struct EventFields {
    var type = ""
    var source = ""
    var seq: Int64 = 0
    var t: Int64 = 0
    var face: String = ""
    var option: String = ""

    init(_ json: [UInt8]) {
        guard let event = try? JSONParser.parse(json) else { return }
        if case .string(let v)? = event["type"] { type = v }
        if case .string(let v)? = event["button"] ?? event["sheet"] { source = v }
        if case .int(let v)? = event["seq"] { seq = v }
        if case .int(let v)? = event["t"] { t = v }
        if case .int(let v)? = event["data"]?["face"] { face = String(v) }
        if case .string(let v)? = event["data"]?["option"] { option = v }
    }

    /// An argument that is exactly one placeholder becomes its value; any other stays as it is.
    func substitute(_ argument: String) -> String {
        switch argument {
        case "{button}": source
        case "{type}": type
        case "{seq}": String(seq)
        case "{t}": String(t)
        case "{face}": face
        case "{option}": option
        default: argument
        }
    }
}
