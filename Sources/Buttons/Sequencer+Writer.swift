import ButtonStore
import ThreadSupport

/// The writer thread: the second stage of the sequencer's pipeline. It takes one sealed batch
/// at a time, writes it in one transaction and, once it is durable, makes it real (machines
/// kept, deliveries handed on, events published, callers answered), in the order the batches
/// were applied. If the store refuses a batch nothing of it happened: its callers get 503
/// and the sequencer learns it before it hands over the next.
extension Sequencer {
    /// Hands `batch` to the writer (the sequencer gives one at a time: the last has ended).
    func write(_ batch: Batch) {
        writeCondition.locked {
            precondition(handoff == nil, "one batch at a time")
            handoff = batch
            writeCondition.signal()
        }
    }

    func runWriter() {
        // It answers every caller of a batch: request threads must not preempt it either.
        setThreadNice(-10)
        while true {
            let next = writeCondition.locked { () -> Batch? in
                while handoff == nil && writerRunning { writeCondition.wait() }
                defer { handoff = nil }
                return handoff
            }
            guard let batch = next else { break }
            writerDone(committed: commit(batch))
        }
    }

    /// Lets the writer thread end: it is idle, the sequencer has taken its last outcome.
    func stopWriter() {
        writeCondition.locked {
            writerRunning = false
            writeCondition.broadcast()
        }
    }

    /// Writes the batch and, once it is durable, keeps its machines, publishes its events and
    /// answers its callers. False if the store refused it (callers answered 503, seq unused).
    private func commit(_ batch: Batch) -> Bool {
        let states = batch.states
        do throws(StoreError) {
            try log.write(batch.events, states: states, deliveries: batch.deliveries)
        } catch {
            let refusal = ButtonsError.unavailable("the event log could not be written: \(error.description) (`buttond check` tells whether the database is damaged)", retryAfter: 1)
            let answers = batch.answers
            answering { for answer in answers { answer.reply(.failure(refusal)) } }
            return false
        }
        for (_, entry) in batch.buttons { entry.slot.locked { entry.slot.machine = entry.machine } }
        for (_, entry) in batch.sheets { entry.slot.locked { entry.slot.machine = entry.machine } }
        dispatcher.added(batch.deliveries)
        publisher.publish(batch.events)
        let (answers, events) = (batch.answers, batch.events)
        answering {
            for answer in answers { answer.reply(.success(Array(events[answer.events]))) }
        }
        observer.committed(batch.events, states: states, answers: batch.answers.count)
        return true
    }
}
