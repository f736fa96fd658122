import Platform
import ThreadSupport

/// The reader connections of a store: at most `limit` lent at once.
///
/// History pages and delivery listings are read on the slow lane, stream replays on their
/// thread, registry reads on the HTTP workers; with no bound, a few clients looping on reads
/// held every core and the writer waited for one. A caller waits at most `patience` for a
/// reader, then gets a busy
/// `StoreError` (the API's 503 with `Retry-After`). Nearly every read is a range of an index
/// (a page, or a page and the runs and tail it skips; a page of `ok` deliveries walks the log
/// newest first), so a wait is a millisecond or two; the patience is long enough that
/// ordinary concurrency (panels loading, a stream replaying) never sees a 503, and short
/// enough that a flood of readers cannot hold a worker, and the presses behind it, for long.
/// Idle readers stay open for the next caller.
final class ReaderPool: @unchecked Sendable {  // idle, lent and closed are touched with `condition` locked only
    /// Reads at once: one core's worth on a 2-core machine, leaving the other to the
    /// sequencer and the workers; a page is at most 1 000 rows of an index, about a millisecond.
    static let limit = 2
    /// How long a caller waits for a reader.
    static let patience = 0.5

    private let path: String
    private let clock: Clock
    private let condition = Condition()
    private var idle: [Connection] = []
    private var lent = 0
    private var closed = false

    init(path: String, clock: Clock) {
        self.path = path
        self.clock = clock
    }

    /// Runs `body` with a reader of its own: it sees every committed transaction and never
    /// waits for the writer, nor the writer for it.
    func withReader<Result>(_ body: (Connection) throws(StoreError) -> Result) throws(StoreError) -> Result {
        let reader: Connection
        if let idle = try lend() {
            reader = idle
        } else {
            do {
                reader = try Connection(path: path, role: .reader)
            } catch {
                giveBack(nil)
                throw error
            }
        }
        defer { giveBack(reader) }
        return try body(reader)
    }

    /// Counts one more lent (an idle reader if any), or throws when closed or when none came free in time.
    private func lend() throws(StoreError) -> Connection? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = clock.monotonic() + Self.patience
        while !closed && lent >= Self.limit {
            let left = deadline - clock.monotonic()
            guard left > 0 else {
                throw StoreError("all \(Self.limit) readers of \(path) are busy; try again", busy: true)
            }
            condition.wait(seconds: left)
        }
        guard !closed else { throw StoreError("the store at \(path) is closed") }
        lent += 1
        return idle.popLast()
    }

    private func giveBack(_ reader: Connection?) {
        let surplus = condition.locked { () -> Connection? in
            lent -= 1
            condition.signal()
            guard let reader, closed else {
                if let reader { idle.append(reader) }
                return nil
            }
            return reader
        }
        surplus?.close()
    }

    /// Closes the idle readers; those lent out close when given back.
    func close() {
        let readers = condition.locked { () -> [Connection] in
            closed = true
            condition.broadcast()
            defer { idle = [] }
            return idle
        }
        for reader in readers { reader.close() }
    }
}
