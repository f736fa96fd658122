import Synchronization

/// The one SQLite database of a buttond data directory.
///
/// It holds the registry (buttons, sheets, handlers), the event log and the delivery outbox,
/// so a restart loses nothing that was answered. One connection behind a lock serializes
/// every call; prepared statements are cached and reused.
public final class ButtonStore: Sendable {
    /// The database's file name inside the data directory.
    public static let fileName = "buttond.sqlite3"

    /// The schema version (`PRAGMA user_version`) this build creates and understands.
    public static var schemaVersion: Int { Schema.currentVersion }

    /// The database file's path.
    public let path: String

    /// `nil` once closed.
    private let connection: Mutex<Connection?>

    /// Creates the directory (0700) if missing, opens or creates the database (0600) and
    /// migrates it; a bad directory or a corrupt file throws with a message naming the path.
    public init(directory: String) throws(StoreError) {
        try DataDirectory.create(directory)
        let path = directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName
        try DataDirectory.prepareFile(path)
        let connection = try Connection(path: path)
        try Schema.migrate(connection)
        self.path = path
        self.connection = Mutex(connection)
    }

    /// Closes the database; later calls throw. Closing twice is harmless.
    public func close() {
        connection.withLock { connection in
            connection?.close()
            connection = nil
        }
    }

    /// The database's `PRAGMA user_version`.
    public func userVersion() throws(StoreError) -> Int {
        try withConnection { connection throws(StoreError) in try Schema.userVersion(connection) }
    }

    /// Runs `body` with the connection, under the lock.
    func withConnection<Result: Sendable>(
        _ body: (Connection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try connection.withLock { (connection: inout Connection?) throws(StoreError) -> Result in
            guard let open = connection else {
                throw StoreError("the store at \(path) is closed")
            }
            return try body(open)
        }
    }
}
