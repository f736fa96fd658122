import ButtonStore
import ThreadSupport

/// The writer thread: the second stage of the sequencer's pipeline. When it is free it takes
/// the open batch (the sequencer applies its successor on top of it), writes it in one transaction and, once it is durable, makes
/// it real (machines kept, deliveries handed on, events published, callers answered), in
/// the order the batches were applied. It applies itself what was submitted while it wrote
/// (the sequencer thread keeps the timers, exclusive jobs and applying again after a failure),
/// so under load a batch is neither handed over nor waited for. If the store refuses a batch nothing of it
/// happened: its callers get 503, and it takes nothing more until the sequencer has applied
/// again what followed.
extension Sequencer {
    func runWriter() {
        // It answers every caller of a batch: request threads must not preempt it either.
        setThreadNice(-10)
        stage.lock()
        while true {
            // What was queued while it wrote, it applies itself: under load nobody sleeps or
            // wakes between a commit and the next, and the batch is not handed over. What
            // arrives meanwhile waits for the next commit: that is the group commit.
            while writerRunning, let work = takeQueuedForWriter() {
                applyOnWriter(work)
                if !open.isEmpty { break }  // else it looks again, and is idle if nothing is queued
            }
            if writerRunning && (failed != nil || open.isEmpty) {
                // Idle (`writerBusy` is false): a submit, the sequencer (a timer, a batch
                // applied again) or the stop rings the bell.
                stage.unlock()
                writerBell.locked {
                    while !kicked { writerBell.wait() }
                    kicked = false
                }
                stage.lock()
                continue
            }
            guard failed == nil, !open.isEmpty else { break }
            let batch = open
            open = Batch(after: batch, committed: committed)
            writing = true
            condition.locked { writerBusy = true }
            stage.unlock()
            // Every batch before it is committed: what it refused was decided on real state.
            let refusals = batch.refusals
            for refusal in refusals { refusal.reply(.failure(refusal.error)) }
            let written = !batch.needsWrite || commit(batch)
            stage.lock()
            writing = false
            if written {
                committed = batch.generation
            } else {
                failed = batch
                writerRefused()
            }
            stage.broadcast()
        }
        stage.unlock()
    }

    /// Writes the batch and, once it is durable, keeps its machines, publishes its events and
    /// answers its callers. False if the store refused it (callers answered 503, seq unused).
    private func commit(_ batch: Batch) -> Bool {
        let states = batch.states
        do throws(StoreError) {
            try log.write(batch.events, states: states, deliveries: batch.deliveries)
        } catch {
            let refusal = ButtonsError.unavailable("the event log could not be written: \(error.description) (`buttond check` tells whether the database is damaged)", retryAfter: 1)
            for answer in batch.answers { answer.reply(.failure(refusal)) }
            return false
        }
        for (_, entry) in batch.buttons { entry.slot.locked { entry.slot.machine = entry.machine } }
        for (_, entry) in batch.sheets { entry.slot.locked { entry.slot.machine = entry.machine } }
        dispatcher.added(batch.deliveries)
        publisher.publish(batch.events)
        // Each reply renders its answer, then takes the connections' lock only to resume:
        // held over a whole batch's rendering, that lock kept the workers from suspending.
        let events = batch.events
        for answer in batch.answers { answer.reply(.success(Array(events[answer.events]))) }
        observer.committed(batch.events, states: states, answers: batch.answers.count)
        return true
    }
}
