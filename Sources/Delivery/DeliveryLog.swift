import Outbox
import ThreadSupport

/// Writes finished attempts to the store and keeps the log within its retention.
///
/// A worker hands its attempt over and goes on to the next delivery; one thread writes
/// whatever has been handed over, in one transaction, as often as the store keeps up. The
/// dispatcher's memory is the truth for what to send next, so nothing waits for these writes;
/// a crash before one lands leaves the delivery pending on disk, and it is sent again after
/// the restart (at-least-once). Past the retention by 1 %, the same transaction drops the
/// oldest finished deliveries.
final class DeliveryLog: @unchecked Sendable {  // every `var` is guarded by `recording`
    private let store: any DeliveryStore
    let retention: Int
    private let recording = Condition()
    private var queued: [FinishedAttempt] = []
    private var writing = false
    private var started = false
    private var stopping = false
    private var stopped = false
    /// Finished deliveries in the store.
    private var finished = 0

    init(store: any DeliveryStore, retention: Int) {
        self.store = store
        self.retention = max(retention, 0)
    }

    func load() throws {
        let count = try store.finishedDeliveryCount()
        recording.locked { finished = count }
    }

    func start() {
        recording.locked { started = true }
        startThread(name: "buttond.record", nice: DeliveryThreads.nice) { [self] in run() }
    }

    /// Hands an attempt over to be written.
    func record(_ attempt: Dispatcher.Attempt) {
        let row = attempt.delivery
        let stored = StoredAttempt(
            delivery: row.id, number: attempt.number, startedAt: attempt.startedAt, durationMs: attempt.result.durationMs,
            outcome: attempt.result.outcome.rawValue, statusCode: attempt.result.statusCode,
            exitCode: attempt.result.exitCode, output: attempt.result.output)
        recording.locked {
            queued.append(FinishedAttempt(stored, status: row.status, nextAttemptAt: row.nextAttemptAt))
            if !writing { recording.signal() }
        }
    }

    private func run() {
        recording.lock()
        while true {
            while queued.isEmpty && !stopping { recording.wait() }
            if queued.isEmpty { break }
            let batch = queued
            queued = []
            writing = true
            let retention = Retention(keep: retention, slack: retention / 100, finishedBefore: finished)
            recording.unlock()
            let written = (try? store.record(batch, retention: retention)) ?? (finished: 0, trimmed: 0)
            recording.lock()
            finished += written.finished - written.trimmed
            writing = false
            recording.broadcast()
        }
        stopped = true
        recording.broadcast()
        recording.unlock()
    }

    /// Writes what is handed over, then stops (before the store closes).
    func stop() {
        recording.lock()
        stopping = true
        recording.broadcast()
        while started && !stopped { recording.wait() }
        recording.unlock()
    }

    /// Waits until everything handed over is written.
    func flush() {
        recording.lock()
        while writing || !queued.isEmpty && !stopped { recording.wait() }
        recording.unlock()
    }

    /// A finished delivery was made pending again (a redelivery).
    func reopened() {
        recording.locked { finished -= 1 }
    }

    /// Deliveries were deleted with their handler: counts again.
    func recount() {
        flush()
        recording.locked {
            if let count = try? store.finishedDeliveryCount() { finished = count }
        }
    }
}
