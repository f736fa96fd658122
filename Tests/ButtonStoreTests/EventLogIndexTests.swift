import CSQLite
import Testing

@testable import ButtonStore

/// Filtered history reads seek an index: what one read visits is bounded by its page, not by
/// the length of the log (eight clients reading a quiet button's page over 95 k events once
/// held every core). Asserted on SQLite's plan and its step counters, never on a clock.
@Suite struct EventLogIndexTests {
    /// 100 000 events of 64 busy buttons, with 5 of `quiet` at the start and 5 of sheet
    /// `panel` in the middle.
    static func fill(_ store: ButtonStore) throws {
        for batch in 0..<100 {
            let events = (1...1000).map { k -> StoredEvent in
                let seq = Int64(batch * 1000 + k)
                switch seq {
                case 1...5: return event(seq, button: "quiet")
                case 50_001...50_005: return event(seq, button: nil, sheet: "panel", type: "select")
                default: return event(seq, button: "b\(seq % 64)")
                }
            }
            try store.commit(events: events, states: [], deliveries: [])
        }
    }

    /// The steps SQLite took for one run of `sql` with ?1 `source`, ?2 `limit`, ?3 `after`.
    struct Run {
        var rows = 0
        var fullScanSteps: Int32 = 0
        var vmSteps: Int32 = 0
        var plan: [String] = []
    }

    static func run(_ sql: StaticString, path: String, source: String?, limit: Int, after: Int64 = 0) throws -> Run {
        var db: OpaquePointer?
        #expect(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
        defer { sqlite3_close_v2(db) }
        var result = Run()
        result.plan = try rows(db, "EXPLAIN QUERY PLAN \(sql)", column: 3, source: source, limit: limit, after: after).texts
        let run = try rows(db, "\(sql)", column: 0, source: source, limit: limit, after: after)
        result.rows = run.texts.count
        result.fullScanSteps = run.fullScanSteps
        result.vmSteps = run.vmSteps
        return result
    }

    private static func rows(
        _ db: OpaquePointer?, _ sql: String, column: Int32, source: String?, limit: Int, after: Int64
    ) throws -> (texts: [String], fullScanSteps: Int32, vmSteps: Int32) {
        var statement: OpaquePointer?
        try #require(sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        if let source { sqlite3_bind_text(statement, 1, source, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self)) }
        sqlite3_bind_int64(statement, 2, Int64(limit))
        sqlite3_bind_int64(statement, 3, after)
        var texts: [String] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            texts.append(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "")
        }
        return (
            texts, sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0),
            sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_VM_STEP, 0)
        )
    }

    @Test(arguments: [EventQuery.sourceAfter, EventQuery.sourceNewest])
    func aFilteredReadSeeksTheSourceIndex(sql: StaticString) throws {
        try withStore { store, _ throws in
            try Self.fill(store)
            for (source, after) in [("quiet", Int64(0)), ("quiet", 3), ("panel", 0), ("b7", 90_000), ("gone", 0)] {
                let run = try Self.run(sql, path: store.path, source: source, limit: 100, after: after)
                #expect(run.plan.count == 1, "\(run.plan)")
                #expect(run.plan.allSatisfy { $0.hasPrefix("SEARCH events USING INDEX events_source") }, "\(run.plan)")
                #expect(run.fullScanSteps == 0)
                // A few dozen VM steps a row returned, however long the log (a walk of the
                // log took millions).
                #expect(run.vmSteps < Int32(40 * (run.rows + 2)), "\(source) after \(after): \(run.vmSteps) steps, \(run.rows) rows")
            }
        }
    }

    @Test(arguments: [EventQuery.after, EventQuery.newest])
    func anUnfilteredReadVisitsOnlyItsPage(sql: StaticString) throws {
        try withStore { store, _ throws in
            try Self.fill(store)
            let run = try Self.run(sql, path: store.path, source: nil, limit: 100, after: 99_000)
            #expect(run.rows == 100)
            #expect(run.fullScanSteps <= 100)
            #expect(run.vmSteps < 40 * 102, "\(run.vmSteps) steps")
        }
    }

    @Test func filteredPagesAreTheSourcesEventsInSeqOrder() throws {
        try withStore { store, _ throws in
            try Self.fill(store)
            #expect(try store.events(after: 0, limit: 100, button: "quiet").map(\.seq) == [1, 2, 3, 4, 5])
            #expect(try store.events(after: 2, limit: 2, button: "quiet").map(\.seq) == [3, 4])
            #expect(try store.latestEvents(limit: 3, button: "quiet").map(\.seq) == [3, 4, 5])
            #expect(try store.events(after: 0, limit: 10, button: "panel").map(\.seq) == Array(50_001...50_005))
            #expect(try store.latestEvents(limit: 2, button: "panel").map(\.sheet) == ["panel", "panel"])
            #expect(try store.events(after: 99_800, limit: 3, button: "b7").map(\.seq) == [99_847, 99_911, 99_975])
            #expect(try store.latestEvents(limit: 2, button: "b7").map(\.seq) == [99_911, 99_975])
            #expect(try store.events(after: 0, limit: 10, button: "gone").isEmpty)
        }
    }

    /// At most `ReaderPool.limit` reads at once; the next caller waits briefly, then is told
    /// the store is busy (not damaged), and reads again once one is given back.
    @Test func readsBeyondThePoolsLimitAreRefusedAsBusy() throws {
        try withStore { store, _ throws in
            try store.commit(events: [event(1)], states: [], deliveries: [])
            #expect(ReaderPool.limit == 2)
            try store.withReader { _ throws(StoreError) in
                try store.withReader { _ throws(StoreError) in
                    let error = #expect(throws: StoreError.self) { try store.events(after: 0, limit: 10, button: nil) }
                    #expect(error?.busy == true)
                    #expect(error?.description.contains("busy") == true)
                }
                #expect(try store.events(after: 0, limit: 10, button: nil).count == 1)
            }
        }
    }
}
