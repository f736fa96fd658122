import Outbox
import FoundationEssentials
import ThreadSupport

extension Dispatcher {
    /// A run of attempts that ended, with the destination it held.
    struct Ended {
        var attempts: [Attempt]
        var destination: String
    }

    /// The dispatcher's thread: hands the outcomes of ended attempts to the log and takes them
    /// back into memory, then starts every delivery that may go now (the oldest first: a free
    /// handler's next due one, or a run of them for a sender that takes several, to a
    /// destination with room, while fewer than `concurrency` are in flight) and sleeps until
    /// the next retry, an attempt's end or new work. It never waits for a sender.
    func run(onAttempt: @Sendable (Attempt) -> Void) {
        // Not lowered: see `HandlerSenders.start`.
        condition.lock()
        while true {
            if !state.ended.isEmpty {
                let ended = state.ended
                state.ended = []
                condition.unlock()
                for attempt in ended.lazy.flatMap(\.attempts) where !abandoned.load(ordering: .sequentiallyConsistent) {
                    log.record(attempt)
                    onAttempt(attempt)
                }
                condition.lock()
                for run in ended { finish(run.attempts, destination: run.destination) }
                continue
            }
            if state.stopping {
                if state.running == 0 || state.stopped { break }
                condition.wait()
                continue
            }
            let now = clock.now()
            var wakeAt = now + 60_000
            var starting: [([DeliveryRow], Target)] = []
            while state.running < concurrency {
                let (next, at) = nextDue(now: now)
                wakeAt = at
                guard let (rows, target) = next, let last = rows.last else { break }
                state.queues[last.handler]?.inFlight = last.id
                state.slots.take(target.destination)
                state.running += 1
                starting.append((rows, target))
            }
            guard !starting.isEmpty else {
                if state.running >= concurrency {
                    condition.wait()
                } else {
                    _ = condition.wait(seconds: Double(min(wakeAt - now, 60_000)) / 1000)
                }
                continue
            }
            condition.unlock()
            for (rows, target) in starting { start(rows, target) }
            condition.lock()
        }
        condition.unlock()
    }

    /// How often a sender that is not ready is looked at again.
    static let notReadyRecheckMs: Int64 = 5_000

    /// With `condition` held: the oldest delivery that may go now (with the due ones right
    /// behind it, for a target that sends several at once), and when to look again. One whose
    /// destination is full is passed over; the attempt that frees a slot looks again.
    private func nextDue(now: Int64) -> (next: ([DeliveryRow], Target)?, wakeAt: Int64) {
        var wakeAt = now + 60_000
        // Every destination full (at saturation, after each start): only an attempt's end,
        // which wakes the thread, can let one more go.
        if !state.destinations.isEmpty, !state.destinations.contains(where: { state.slots.hasRoom($0, now: now) }) {
            return (nil, wakeAt)
        }
        var best: (id: Int64, handler: String, target: Target)?
        for (handler, queue) in state.queues where queue.inFlight == nil {
            guard let head = queue.slots.first, head.id < best?.id ?? .max || head.nextAttemptAt > now,
                let target = state.specs[handler], target.enabled
            else { continue }
            if !target.sender.isReady {
                wakeAt = min(wakeAt, now + Self.notReadyRecheckMs)  // in case no one says when it is
                continue
            }
            for slot in queue.slots {
                if slot.nextAttemptAt <= now {
                    if slot.id < best?.id ?? .max, state.slots.hasRoom(target.destination, now: now) { best = (slot.id, handler, target) }
                    break
                }
                wakeAt = min(wakeAt, slot.nextAttemptAt)
                if target.ordered { break }
            }
        }
        guard let best, let queue = state.queues[best.handler] else { return (nil, wakeAt) }
        var rows: [DeliveryRow] = []
        for slot in queue.slots where slot.id >= best.id {
            guard rows.count < best.target.batchLimit, slot.nextAttemptAt <= now, let row = queue[slot.id] else { break }
            rows.append(row)
        }
        return rows.isEmpty ? (nil, wakeAt) : ((rows, best.target), wakeAt)
    }

    /// Starts one attempt of each row (through its target's sender, which answers later, from
    /// any thread); a row too old to send ends `expired` without going.
    private func start(_ rows: [DeliveryRow], _ target: Target) {
        let startedAt = clock.now()
        let (policy, kind, destination) = (target.policy, target.sender.kind, target.destination)
        let expired = rows.map { policy.isExpired(createdAt: $0.createdAt, now: startedAt) }
        let sending = zip(rows, expired).filter { !$0.1 }.map(\.0)
        let done: @Sendable ([AttemptResult]) -> Void = { [self] results in
            var sent = results.makeIterator()
            let all = expired.map { tooOld in
                if tooOld {
                    return AttemptResult(outcome: .expired, output: "not sent: older than expireAfterMs (\(policy.expireAfterMs ?? 0) ms)")
                }
                return sent.next() ?? AttemptResult(outcome: .connect, output: "the \(kind) sender answered no result")
            }
            let attempts = Self.attempts(rows, all, policy: policy, kind: kind, startedAt: startedAt, finishedAt: clock.now())
            condition.locked {
                state.ended.append(Ended(attempts: attempts, destination: destination))
                condition.broadcast()
            }
        }
        if sending.isEmpty { done([]) } else { target.sender.send(sending, done: done) }
    }

    /// What each row is left as after its attempt, as `policy` decides.
    private static func attempts(
        _ rows: [DeliveryRow], _ results: [AttemptResult], policy: DeliveryPolicy, kind: String, startedAt: Int64,
        finishedAt: Int64
    ) -> [Attempt] {
        zip(rows, results).map { row, result in
            var result = result
            if result.outcome != .expired { result.durationMs = finishedAt - startedAt }
            let number = row.attempts + 1
            let decision = policy.decide(
                result, attempt: number, createdAt: row.createdAt, now: finishedAt, jitter: Double.random(in: -0.2...0.2))
            var done = row
            done.attempts = number
            done.lastOutcome = result.outcome.rawValue
            done.lastStatusCode = result.statusCode
            done.lastExitCode = result.exitCode
            done.status = decision.status
            if case .retry(let at) = decision { done.nextAttemptAt = at }
            return Attempt(delivery: done, kind: kind, number: number, startedAt: startedAt, result: result, decision: decision)
        }
    }

    /// With `condition` held, after a run of attempts: the handler may take its next delivery,
    /// and its destination one more (a `stop` waiting for the last one is woken).
    private func finish(_ attempts: [Attempt], destination: String) {
        state.running -= 1
        let slow = attempts.contains { attempt in
            let result = attempt.result
            return result.outcome == .timeout || result.outcome == .connect || result.durationMs >= DestinationSlots.slowAttemptMs
        }
        state.slots.release(destination, slow: slow, now: clock.now())
        if state.stopping { condition.broadcast() }
        guard let handler = attempts.last?.delivery.handler, let last = attempts.last?.delivery.id,
            state.queues[handler]?.inFlight == last
        else { return }  // deleted with its handler meanwhile: already dropped from the count
        state.queues[handler]?.inFlight = nil
        for attempt in attempts {
            let row = attempt.delivery
            if row.status.isFinished {
                state.queues[handler]?.remove(row.id)
                depthCounter.subtract(1, ordering: .relaxed)
            } else {
                state.queues[handler]?[row.id] = row
            }
            if attempt.decision == .finishAndDisable { state.specs[handler]?.enabled = false }
        }
        // An emptied queue stays, with its storage, for the handler's next delivery: dropped and
        // made again, its table and order grew anew (and moved their rows) every few deliveries.
        // One that grew large (a backlog after an outage) goes, so its memory does not stay.
        if let queue = state.queues[handler], queue.isEmpty, queue.isLarge { state.queues[handler] = nil }
    }
}
