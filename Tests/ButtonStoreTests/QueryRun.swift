import CSQLite
import Testing

@testable import ButtonStore

/// One run of a statement on a read-only connection of its own: the rows it gave, the steps
/// SQLite took (what a test of an index asserts, never a clock) and its plan.
struct QueryRun {
    var rows = 0
    var fullScanSteps: Int32 = 0
    var vmSteps: Int32 = 0
    var plan: [String] = []

    /// Runs `sql` on the database at `path`, `bind` setting its parameters (for the plan too).
    init(_ sql: StaticString, path: String, bind: (OpaquePointer?) -> Void) throws {
        var db: OpaquePointer?
        #expect(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
        defer { sqlite3_close_v2(db) }
        plan = try Self.step(db, "EXPLAIN QUERY PLAN \(sql)", column: 3, bind: bind).texts
        let run = try Self.step(db, "\(sql)", column: 0, bind: bind)
        rows = run.texts.count
        fullScanSteps = run.fullScanSteps
        vmSteps = run.vmSteps
    }

    private static func step(
        _ db: OpaquePointer?, _ sql: String, column: Int32, bind: (OpaquePointer?) -> Void
    ) throws -> (texts: [String], fullScanSteps: Int32, vmSteps: Int32) {
        var statement: OpaquePointer?
        try #require(sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        bind(statement)
        var texts: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            texts.append(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
        }
        return (
            texts, sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0),
            sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_VM_STEP, 0)
        )
    }

    /// Binds a copy of `text` to parameter `index`.
    static func bind(_ text: String, at index: Int32, to statement: OpaquePointer?) {
        sqlite3_bind_text(statement, index, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }
}

/// The names of `table`'s indexes, as SQLite's schema lists them.
func indexNames(_ store: ButtonStore, table: String) throws -> [String] {
    try store.withReader { connection throws(StoreError) in
        let select = try connection.statement("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?1 ORDER BY name")
        select.bind(table, at: 1)
        return try select.rows { $0.text(0) }
    }
}
