import ThreadSupport

import Platform

/// The one SQLite database of a buttond data directory.
///
/// It holds the registry (buttons, sheets, handlers), the event log and the delivery outbox,
/// so a restart loses nothing that was answered. One writer connection behind a lock
/// serializes every change; reads of history and deliveries use reader connections of their
/// own (WAL lets them run beside the writer), and a checkpointer thread keeps the log short.
public final class ButtonStore: Sendable {
    /// The database's file name inside the data directory.
    public static let fileName = "buttond.sqlite3"

    /// The schema version (`PRAGMA user_version`) this build creates and understands.
    public static var schemaVersion: Int { Schema.currentVersion }

    /// The database file's path.
    public let path: String

    /// `nil` once closed.
    private let connection: Locked<Connection?>
    /// What the source and handler indexes' next bulk writes take and whose entries the source
    /// index holds (the writer's, touched only under `connection`'s lock).
    let bulkIndexes = Locked(BulkIndexState())
    private let readers: ReaderPool
    private let checkpointer: Checkpointer
    /// The open, flock-ed lock file: one buttond per data directory.
    private let lockFile: Int32

    /// Creates the directory (0700) if missing, opens or creates the database (0600) and
    /// migrates it; a bad directory, a damaged file (`verify`) or a directory another buttond
    /// holds throws with a message naming the path. `clock` measures a reader's wait and the
    /// checkpointer's back-off.
    public init(directory: String, clock: Clock) throws(StoreError) {
        try DataDirectory.create(directory)
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        let path = base + Self.fileName
        lockFile = try DataDirectory.lock(base + "buttond.lock")
        do {
            try DataDirectory.prepareFile(path)
            let connection = try Connection(path: path)
            try Self.verify(connection)
            try Schema.migrate(connection)
            let writer = Locked<Connection?>(connection)
            checkpointer = try Checkpointer(path: path, clock: clock) { body in writer.withLock { _ in body() } }
            self.connection = writer
        } catch {
            Platform.close(lockFile)
            throw error
        }
        self.path = path
        readers = ReaderPool(path: path, clock: clock)
        checkpointer.start()
    }

    /// Closes the database; later calls throw. Closing twice is harmless.
    public func close() {
        guard let writer = connection.withLock({ connection -> Connection? in
            defer { connection = nil }
            return connection
        }) else { return }
        readers.close()
        checkpointer.stop()
        writer.close()
        Platform.close(lockFile)
    }

    /// The database's `PRAGMA user_version`.
    public func userVersion() throws(StoreError) -> Int {
        try withConnection { connection throws(StoreError) in try Schema.userVersion(connection) }
    }

    /// Runs `body` with the writer connection, under the lock.
    package func withConnection<Result: Sendable>(
        _ body: (Connection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try connection.withLock { (connection: inout Connection?) throws(StoreError) -> Result in
            guard let open = connection else {
                throw StoreError("the store at \(path) is closed")
            }
            let result = try body(open)
            if open.walPages >= Checkpointer.threshold { checkpointer.request() }
            return result
        }
    }

    /// Runs `body` with a reader connection of its own (at most `ReaderPool.limit` at once): it
    /// sees every committed transaction and never waits for the writer, nor the writer for it.
    func withReader<Result: Sendable>(
        _ body: (Connection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try readers.withReader(body)
    }
}
