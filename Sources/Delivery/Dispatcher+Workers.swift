import ButtonStore
import FoundationEssentials
import ThreadSupport

extension Dispatcher {
    /// A worker thread: takes the oldest delivery that may go now (a free handler's next due
    /// one, or a run of them for a sender that takes several, to a destination with room),
    /// sends it, hands the outcome to the log, and looks again; with nothing due, it sleeps
    /// until the next retry or until woken. Workers pull: no thread hands work over.
    func work() {
        // Input comes first: a delivery may wait a little (it is durable in the log), a press
        // must not. Lowered from the thread itself: what it spawns (scripts) inherits it.
        setThreadNice(5)
        let sender = WebhookSender(rules: rules)
        condition.lock()
        while !state.stopping {
            let now = Self.now()
            let (next, wakeAt) = nextDue(now: now)
            guard let (rows, target) = next, let last = rows.last else {
                _ = condition.wait(seconds: Double(min(wakeAt - now, 60_000)) / 1000)
                continue
            }
            state.queues[last.handler]?.inFlight = last.id
            state.slots.take(target.destination)
            state.running += 1
            condition.unlock()
            let attempts = self.attempts(rows, target, sender: sender)
            for attempt in attempts where !abandoned.load(ordering: .sequentiallyConsistent) {
                log.record(attempt)
                onAttempt(attempt)
            }
            condition.lock()
            finish(attempts, destination: target.destination)
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
        var best: (id: Int64, handler: String, target: Target)?
        for (handler, queue) in state.queues where queue.inFlight == nil {
            guard let head = queue.slots.first, head.id < best?.id ?? .max || head.nextAttemptAt > now,
                let target = state.specs[handler], target.enabled
            else { continue }
            if !target.isReady {
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

    /// Runs one attempt of each row (a handler target always gets one row).
    private func attempts(_ rows: [DeliveryRow], _ target: Target, sender: WebhookSender) -> [Attempt] {
        let startedAt = Self.now()
        var results: [AttemptResult]
        switch target.runner {
        case .sender(let custom):
            results = custom.send(rows)
        case .handler(let handler, let key, let directory):
            results = rows.map { row in
                if target.policy.isExpired(createdAt: row.createdAt, now: startedAt) {
                    let expire = target.policy.expireAfterMs ?? 0
                    return AttemptResult(outcome: .expired, output: "not sent: older than expireAfterMs (\(expire) ms)")
                }
                let fields = Placeholders(row.event)
                switch handler.action {
                case .webhook(let webhook):
                    return sender.send(webhook, key: key, delivery: row, fields: fields, userAgent: userAgent)
                case .script(let script):
                    return ScriptRunner.run(
                        script, in: directory, arguments: script.args.map(fields.substitute),
                        environment: ScriptRunner.environment(
                            event: row.event.json, type: row.event.type, button: row.event.source, seq: row.event.seq,
                            attempt: row.attempts + 1),
                        stdin: row.payload, groups: scripts
                    ).result
                case .osc(let osc):
                    return OSCSender(osc: osc, rules: rules).send([row])[0]
                }
            }
        }
        let finishedAt = Self.now()
        return zip(rows, results).map { row, result in
            var result = result
            if result.outcome != .expired { result.durationMs = finishedAt - startedAt }
            let number = row.attempts + 1
            let decision = target.policy.decide(
                result, attempt: number, createdAt: row.createdAt, now: finishedAt, jitter: Double.random(in: -0.2...0.2))
            var done = row
            done.attempts = number
            done.lastOutcome = result.outcome.rawValue
            done.lastStatusCode = result.statusCode
            done.lastExitCode = result.exitCode
            done.status = decision.status
            if case .retry(let at) = decision { done.nextAttemptAt = at }
            return Attempt(delivery: done, kind: target.kind, number: number, startedAt: startedAt, result: result, decision: decision)
        }
    }

    /// With `condition` held, after a run of attempts: the handler may take its next delivery,
    /// and its destination one more (a worker waiting for that is woken; this one looks too).
    private func finish(_ attempts: [Attempt], destination: String) {
        state.running -= 1
        let slow = attempts.contains { attempt in
            let result = attempt.result
            return result.outcome == .timeout || result.outcome == .connect || result.durationMs >= DestinationSlots.slowAttemptMs
        }
        let wasFull = state.slots.release(destination, slow: slow, now: Self.now())
        if state.stopping { condition.broadcast() } else if wasFull { condition.signal() }
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
        if state.queues[handler]?.isEmpty == true { state.queues[handler] = nil }
    }
}
