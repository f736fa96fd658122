import Platform
import ThreadSupport

/// Copies the write-ahead log back into the database on a thread of its own, with a
/// connection of its own, so no commit (and so no request) ever pays for a checkpoint.
/// The writer asks for one after a commit that left the log past `threshold` pages (16 MiB:
/// pages written again and again, like the log's tail, button states and the outbox's
/// indexes, are copied and synced once a round; the writer never waits for a round).
///
/// Under steady load a checkpoint never copies the whole log (the writer adds to it all the
/// while), and SQLite starts the log over only when all of it is copied: it grew without end
/// (200 MB in `make bench`'s press + webhook scenario), and every commit wrote to new file
/// space, which the kernel allocates and zeroes, and looked pages up in an ever longer index.
/// So a round goes on while each pass leaves less behind, and once what is left is small it
/// copies the rest holding the writer off (`holdingWriter`): a short pause of the writer, one
/// copy of a few frames and a sync, after which the next commit starts the log over.
final class Checkpointer: @unchecked Sendable {  // `requested` and `stopped` are guarded by `condition`
    static let threshold = 4000
    /// Frames left after a pass that the last pass copies with the writer held off.
    static let finishing = 256
    /// Passes in one round at most: a load that outruns them leaves the rest to the next round.
    static let passes = 6
    /// After a last pass that a reader kept from copying everything (a long history replay
    /// reads an older snapshot), the writer is not held off again for this long: it would
    /// only pause commits for a log that cannot start over yet.
    static let readerBackoffSeconds = 0.5

    private let condition = Condition()
    private let connection: Connection
    private let clock: Clock
    /// Runs its argument while no commit can start (the store's writer connection's lock).
    private let holdingWriter: @Sendable (() -> Void) -> Void
    private var requested = false
    private var stopped = false
    private var running = false
    /// When the writer may be held off again (the checkpoint thread's own).
    private var finishAfter = 0.0

    init(path: String, clock: Clock, holdingWriter: @escaping @Sendable (() -> Void) -> Void) throws(StoreError) {
        connection = try Connection(path: path, role: .checkpointer)
        self.clock = clock
        self.holdingWriter = holdingWriter
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
        _ = try? connection.checkpoint()
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
            round()
            condition.lock()
        }
        running = false
        condition.broadcast()
        condition.unlock()
    }

    /// Passes until the log is copied whole (it then starts over at the next commit).
    private func round() {
        for _ in 0..<Self.passes {
            guard let pass = try? connection.checkpoint(), pass.frames > pass.copied else { return }
            if pass.frames - pass.copied <= Self.finishing {
                guard clock.monotonic() >= finishAfter else { return }
                var last: (frames: Int, copied: Int)?
                holdingWriter { last = try? self.connection.checkpoint(whole: true) }
                if let last, last.copied < last.frames { finishAfter = clock.monotonic() + Self.readerBackoffSeconds }
                return
            }
        }
    }
}
