import CSQLite

/// One open sqlite3 connection and its cache of prepared statements.
///
/// Not thread-safe: `ButtonStore` keeps it inside a `Mutex` and touches it only under the lock.
final class Connection {
    let path: String
    private let db: OpaquePointer
    /// Keyed by the address of the SQL literal: a pointer hash, no string hashing on the hot path.
    private var statements: [UnsafeRawPointer: Statement] = [:]
    private var isClosed = false

    /// Opens (creating if needed) the database file and applies the connection settings.
    init(path: String) throws(StoreError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(handle)
            throw StoreError.sqlite(code, message: message, path: path, doing: "opening the database")
        }
        self.db = handle
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
        // WAL with synchronous=NORMAL: a committed transaction survives a process crash, and
        // commits do not wait for fsync (only a power loss can drop the last few).
        try execute("PRAGMA journal_mode = WAL", doing: "switching to WAL (is it a SQLite database?)")
        // One process owns a data directory: exclusive locking drops per-transaction file locks
        // (and makes a second buttond on the same directory fail at start, not corrupt it).
        try execute(
            "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA locking_mode = EXCLUSIVE; "
                + "PRAGMA cache_size = -16384; PRAGMA wal_autocheckpoint = 1000; PRAGMA temp_store = MEMORY; "
                + "PRAGMA mmap_size = 268435456",
            doing: "configuring the connection")
    }

    deinit {
        close()
    }

    /// Finalizes every cached statement and closes the connection; later use is a bug.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        statements.removeAll()
        sqlite3_close_v2(db)
    }

    /// The cached prepared statement for `sql`, prepared on first use.
    func statement(_ sql: StaticString) throws(StoreError) -> Statement {
        precondition(sql.hasPointerRepresentation, "SQL must be a string literal")
        let key = UnsafeRawPointer(sql.utf8Start)
        if let cached = statements[key] {
            return cached
        }
        var handle: OpaquePointer?
        let code = sql.utf8Start.withMemoryRebound(to: CChar.self, capacity: sql.utf8CodeUnitCount) { chars in
            sqlite3_prepare_v3(
                db, chars, Int32(sql.utf8CodeUnitCount), UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        }
        guard code == SQLITE_OK, let handle else {
            throw StoreError.sqlite(code, message: errorMessage, path: path, doing: "preparing \(sql)")
        }
        let statement = Statement(handle: handle, path: path)
        statements[key] = statement
        return statement
    }

    /// Runs one or more SQL statements that need no bindings (schema, pragmas).
    func execute(_ sql: String, doing context: String) throws(StoreError) {
        var error: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(db, sql, nil, nil, &error)
        guard code == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? errorMessage
            sqlite3_free(error)
            throw StoreError.sqlite(code, message: message, path: path, doing: context)
        }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; any error rolls the whole thing back.
    func transaction<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        try statement("BEGIN IMMEDIATE").run()
        do {
            let result = try body()
            try statement("COMMIT").run()
            return result
        } catch {
            if sqlite3_get_autocommit(db) == 0 {
                sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            }
            throw error
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int {
        Int(sqlite3_changes64(db))
    }

    private var errorMessage: String {
        String(cString: sqlite3_errmsg(db))
    }
}
