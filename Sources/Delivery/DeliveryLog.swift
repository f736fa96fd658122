import ButtonStore
import ThreadSupport

/// Writes finished attempts to the store and keeps the log within its retention.
///
/// A worker's attempt is written together with any others finished meanwhile (the first
/// worker to find no write running writes everything queued, in one transaction), and the
/// worker returns once it is stored. Every 1 % of the retention past it, the same transaction
/// drops the oldest finished deliveries.
final class DeliveryLog: @unchecked Sendable {  // every `var` is guarded by `recording`
    private let store: ButtonStore
    let retention: Int
    private let recording = Condition()
    private var queued: [ButtonStore.FinishedAttempt] = []
    private var busy = false
    private var tickets = 0
    private var recordedThrough = 0
    /// Finished deliveries in the store.
    private var finished = 0

    init(store: ButtonStore, retention: Int) {
        self.store = store
        self.retention = max(retention, 0)
    }

    func load() throws(StoreError) {
        let count = try store.finishedDeliveryCount()
        recording.locked { finished = count }
    }

    /// Writes an attempt (and what else is queued); returns once it is stored.
    func record(_ attempt: Dispatcher.Attempt) {
        let row = attempt.delivery
        let stored = StoredAttempt(
            delivery: row.id, number: attempt.number, startedAt: attempt.startedAt, durationMs: attempt.result.durationMs,
            outcome: attempt.result.outcome.rawValue, statusCode: attempt.result.statusCode,
            exitCode: attempt.result.exitCode, output: attempt.result.output)
        recording.lock()
        tickets += 1
        let ticket = tickets
        queued.append(ButtonStore.FinishedAttempt(stored, status: row.status, nextAttemptAt: row.nextAttemptAt))
        while recordedThrough < ticket {
            if busy {
                recording.wait()
                continue
            }
            busy = true
            let batch = queued
            let through = tickets
            queued = []
            let finishing = batch.count { $0.status.isFinished }
            let excess = finished + finishing - retention
            let trimming = excess > max(retention / 100, 0) ? excess : 0
            recording.unlock()
            let trimmed = (try? store.record(batch, trimming: trimming)) ?? 0
            recording.lock()
            finished += finishing - trimmed
            recordedThrough = through
            busy = false
            recording.broadcast()
        }
        recording.unlock()
    }

    /// A finished delivery was made pending again (a redelivery).
    func reopened() {
        recording.locked { finished -= 1 }
    }

    /// Deliveries were deleted with their handler: counts again.
    func recount() {
        recording.lock()
        while busy { recording.wait() }
        if let count = try? store.finishedDeliveryCount() { finished = count }
        recording.unlock()
    }
}
