import ThreadSupport

/// Copies the write-ahead log back into the database on a thread of its own, with a
/// connection of its own, so no commit (and so no request) ever pays for a checkpoint.
/// The writer asks for one after a commit that left the log past `threshold` pages (16 MiB:
/// pages written again and again, like the log's tail, button states and the outbox's
/// indexes, are copied and synced once a round; the writer never waits for a round).
final class Checkpointer: @unchecked Sendable {  // `requested` and `stopped` are guarded by `condition`
    static let threshold = 4000

    private let condition = Condition()
    private let connection: Connection
    private var requested = false
    private var stopped = false
    private var running = false

    init(path: String) throws(StoreError) {
        connection = try Connection(path: path, role: .checkpointer)
    }

    func start() {
        running = true
        startThread(name: "buttond.checkpoint") { [self] in run() }
    }

    /// Asks for a checkpoint soon; cheap enough to call after every commit.
    func request() {
        condition.locked {
            guard !requested else { return }
            requested = true
            condition.signal()
        }
    }

    /// Stops the thread and closes the connection (after a last checkpoint).
    func stop() {
        condition.locked {
            stopped = true
            condition.broadcast()
            while running { condition.wait() }
        }
        try? connection.checkpoint()
        connection.close()
    }

    private func run() {
        condition.lock()
        while !stopped {
            if !requested {
                condition.wait()
                continue
            }
            requested = false
            condition.unlock()
            try? connection.checkpoint()
            condition.lock()
        }
        running = false
        condition.broadcast()
        condition.unlock()
    }
}
