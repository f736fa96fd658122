import CSQLite

/// One open sqlite3 connection and its cache of prepared statements.
///
/// Not thread-safe: one thread uses it at a time (`ButtonStore` keeps the writer inside a
/// `Mutex` and lends each reader to one caller at a time), hence the unchecked conformance.
package final class Connection: @unchecked Sendable {
    let path: String
    private let db: OpaquePointer
    /// Keyed by the address of the SQL literal: a pointer hash, no string hashing on the hot path.
    private var statements: [UnsafeRawPointer: Statement] = [:]
    /// `statement(_:repeating:rows:then:)`'s, by the address of its head and its row count.
    private var repeatedStatements: [RepeatedKey: Statement] = [:]
    private var isClosed = false
    /// Pages in the write-ahead log after this connection's last commit (writer only).
    private(set) var walPages = 0
    /// How long a statement waits for another connection's lock before it fails busy.
    static let busyTimeoutMs: Int32 = 5000

    /// Process-wide settings SQLite takes only before its first connection: no memory
    /// statistics, whose mutex every allocation of the writer and of each reader took.
    private static let configureSQLite: Void = { _ = bd_sqlite_memstatus_off() }()

    /// What a connection is for: the one writer, a reader beside it, or the checkpointer.
    enum Role {
        case writer, reader, checkpointer
    }

    /// Opens (creating if needed) the database file and applies the connection settings.
    init(path: String, role: Role = .writer) throws(StoreError) {
        Self.configureSQLite
        var handle: OpaquePointer?
        let flags = (role == .reader ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(handle)
            throw StoreError.sqlite(code, message: message, path: path, doing: "opening the database")
        }
        self.db = handle
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, Self.busyTimeoutMs)
        if role == .reader {
            try execute(
                "PRAGMA query_only = 1; PRAGMA cache_size = -8192; PRAGMA temp_store = MEMORY; PRAGMA mmap_size = 0",
                doing: "configuring a reader")
            return
        }
        // WAL: a committed transaction is in the log before the commit returns, so it survives
        // a crash of the process; no commit waits for fsync. Normal (not exclusive) locking,
        // so readers on their own connections run beside the writer; a lock file keeps a
        // second buttond off the directory. The writer never checkpoints and never syncs
        // (with synchronous=NORMAL it would fsync the log's header on the first commit after
        // each restart of the log, and wait behind the checkpoint's own fsync): `Checkpointer`
        // syncs the log and the database on its own thread, as synchronous=NORMAL does.
        // `secure_delete = FAST`: a deleted row (a rotated secret too) is still zeroed in the
        // page its delete writes anyway; Debian's default (on) also wrote every page a
        // retention trim frees, which nothing reads again.
        try execute("PRAGMA journal_mode = WAL", doing: "switching to WAL (is it a SQLite database?)")
        try execute(
            "PRAGMA synchronous = \(role == .writer ? "OFF" : "NORMAL"); PRAGMA foreign_keys = ON; "
                + "PRAGMA cache_size = -16384; PRAGMA wal_autocheckpoint = 0; PRAGMA temp_store = MEMORY; "
                + "PRAGMA mmap_size = 0; PRAGMA secure_delete = FAST",
            doing: "configuring the connection")
        if role == .writer {
            sqlite3_wal_hook(
                db,
                { context, _, _, pages in
                    Unmanaged<Connection>.fromOpaque(context!).takeUnretainedValue().walPages = Int(pages)
                    return SQLITE_OK
                }, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    /// Copies what it can of the write-ahead log into the database without blocking the
    /// writer or readers (`SQLITE_CHECKPOINT_PASSIVE`); the log restarts once all is copied.
    /// With `whole`, nobody may be writing (the caller holds the writer off): it copies the
    /// rest without waiting for anyone (a reader of an older snapshot only makes it copy
    /// less). Returns the frames in the log and how many of them are in the database now.
    @discardableResult
    func checkpoint(whole: Bool = false) throws(StoreError) -> (frames: Int, copied: Int) {
        var frames: Int32 = 0
        var copied: Int32 = 0
        if whole { sqlite3_busy_timeout(db, 0) }
        let code = sqlite3_wal_checkpoint_v2(db, nil, whole ? SQLITE_CHECKPOINT_FULL : SQLITE_CHECKPOINT_PASSIVE, &frames, &copied)
        if whole { sqlite3_busy_timeout(db, Self.busyTimeoutMs) }
        guard code == SQLITE_OK || code == SQLITE_BUSY else {
            throw StoreError.sqlite(code, message: errorMessage, path: path, doing: "checkpointing the write-ahead log")
        }
        return (Int(frames), Int(copied))
    }

    deinit {
        close()
    }

    /// Finalizes every cached statement and closes the connection; later use is a bug.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        statements.removeAll()
        repeatedStatements.removeAll()
        sqlite3_wal_hook(db, nil, nil)
        sqlite3_close_v2(db)
    }

    /// The cached prepared statement for `sql`, prepared on first use.
    package func statement(_ sql: StaticString) throws(StoreError) -> Statement {
        precondition(sql.hasPointerRepresentation, "SQL must be a string literal")
        let key = UnsafeRawPointer(sql.utf8Start)
        if let cached = statements[key] {
            return cached
        }
        let prepared = sql.utf8Start.withMemoryRebound(to: CChar.self, capacity: sql.utf8CodeUnitCount) { chars in
            prepare(chars, count: sql.utf8CodeUnitCount)
        }
        let statement = try statement(prepared, sql: "\(sql)")
        statements[key] = statement
        return statement
    }

    private struct RepeatedKey: Hashable {
        var head: UnsafeRawPointer
        var rows: Int
    }

    /// The cached statement `head`, then `rows` copies of `row` joined by commas, then `tail`:
    /// one INSERT of many rows, whose per-statement work (cursors, the halt, the record
    /// buffers) is done once for all of them. `row` numbers its parameters `?`, so row `r`'s
    /// are those of the first row plus `r` times their count.
    package func statement(
        _ head: StaticString, repeating row: StaticString, rows: Int, then tail: StaticString = ""
    ) throws(StoreError) -> Statement {
        precondition(head.hasPointerRepresentation && rows > 0, "SQL must be a string literal")
        let key = RepeatedKey(head: UnsafeRawPointer(head.utf8Start), rows: rows)
        if let cached = repeatedStatements[key] {
            return cached
        }
        let sql = "\(head)" + repeatElement("\(row)", count: rows).joined(separator: ", ") + "\(tail)"
        let prepared = sql.withCString { chars in prepare(chars, count: sql.utf8.count) }
        let statement = try statement(prepared, sql: sql)
        repeatedStatements[key] = statement
        return statement
    }

    private func prepare(_ chars: UnsafePointer<CChar>, count: Int) -> (code: Int32, handle: OpaquePointer?) {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(db, chars, Int32(count), UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        return (code, handle)
    }

    private func statement(_ prepared: (code: Int32, handle: OpaquePointer?), sql: @autoclosure () -> String) throws(StoreError) -> Statement {
        guard prepared.code == SQLITE_OK, let handle = prepared.handle else {
            throw StoreError.sqlite(prepared.code, message: errorMessage, path: path, doing: "preparing \(sql())")
        }
        return Statement(handle: handle, path: path)
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
    package func transaction<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
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

    /// Runs `body`'s reads in one read transaction (`BEGIN … COMMIT`): every statement sees the
    /// same snapshot, however many commits land meanwhile.
    func reading<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        try statement("BEGIN").run()
        defer { if sqlite3_get_autocommit(db) == 0 { sqlite3_exec(db, "COMMIT", nil, nil, nil) } }
        return try body()
    }

    /// The rowid of the last row inserted (an INTEGER PRIMARY KEY is that rowid).
    package var lastInsertRowID: Int64 {
        sqlite3_last_insert_rowid(db)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int {
        Int(sqlite3_changes64(db))
    }

    private var errorMessage: String {
        String(cString: sqlite3_errmsg(db))
    }
}
