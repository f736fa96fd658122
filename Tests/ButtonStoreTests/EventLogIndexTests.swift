import CSQLite
import TestSupport
import Testing

@testable import ButtonStore

/// Filtered history reads seek an index: what one read visits is bounded by its page and by
/// the unindexed tail (under 1000 events), not by the length of the log (eight clients reading
/// a quiet button's page over 95 k events once held every core). Asserted on SQLite's plan
/// and its step counters, never on a clock.
@Suite struct EventLogIndexTests {
    /// Where `fill` leaves the source index: the 500 events after it are the tail.
    static let indexedThrough: Int64 = 99_500

    /// 100 000 events of 64 busy buttons, with 5 of `quiet` at the start, 5 of sheet `panel`
    /// in the middle and 3 of `late` in the tail; indexed through `indexedThrough`.
    static func fill(_ store: ButtonStore) throws {
        for batch in 0..<200 {
            let events = (1...500).map { k -> StoredEvent in
                let seq = Int64(batch * 500 + k)
                switch seq {
                case 1...5: return event(seq, button: "quiet")
                case 50_001...50_005: return event(seq, button: nil, sheet: "panel", type: "select")
                case 99_600, 99_700, 99_800: return event(seq, button: "late")
                default: return event(seq, button: "b\(seq % 64)")
                }
            }
            try store.commit(events: events, states: [], deliveries: [], writeIndexes: batch < 199)
        }
        #expect(try store.sourcesIndexedThrough() == indexedThrough)
    }

    /// One run of `sql` with ?1 `source`, ?2 `limit`, ?3 `after`, ?4 `through`.
    static func run(
        _ sql: StaticString, path: String, source: String?, limit: Int, after: Int64 = 0, through: Int64 = indexedThrough
    ) throws -> QueryRun {
        try QueryRun(sql, path: path) { statement in
            if let source { QueryRun.bind(source, at: 1, to: statement) }
            sqlite3_bind_int64(statement, 2, Int64(limit))
            sqlite3_bind_int64(statement, 3, after)
            sqlite3_bind_int64(statement, 4, through)
        }
    }

    @Test(arguments: [EventQuery.sourceIndexedAfter, EventQuery.sourceIndexedNewest])
    func aFilteredReadSeeksTheSourceIndex(sql: StaticString) throws {
        try withStore { store, _ throws in
            try Self.fill(store)
            for (source, after) in [("quiet", Int64(0)), ("quiet", 3), ("panel", 0), ("b7", 90_000), ("gone", 0)] {
                let run = try Self.run(sql, path: store.path, source: source, limit: 100, after: after)
                // An entry is a run of the source's events: a range of seqs, each run's few
                // rows put in order on their own.
                #expect(run.plan.count == 3, "\(run.plan)")
                #expect(run.plan.first?.hasPrefix("SEARCH s USING PRIMARY KEY (source=?") == true, "\(run.plan)")
                #expect(run.plan.dropFirst().first == "SEARCH e USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)", "\(run.plan)")
                #expect(run.plan.last == "USE TEMP B-TREE FOR RIGHT PART OF ORDER BY", "\(run.plan)")
                #expect(run.fullScanSteps == 0)
                // A few dozen VM steps a row returned and a few for each other source's event a
                // run holds (fewer than `maxGap` a row: here b7's runs hold 63 between two of its
                // own, the most they can), however long the log (a walk of the log took millions).
                let bound = (60 + 8 * Int(IndexRuns.maxGap)) * (run.rows + 2)
                #expect(run.vmSteps < Int32(bound), "\(source) after \(after): \(run.vmSteps) steps, \(run.rows) rows")
            }
        }
    }

    /// The events after the index's extent are found by walking them, and only them: at most
    /// one maintenance interval (here 500), never the log.
    @Test(arguments: [EventQuery.sourceTailAfter, EventQuery.sourceTailNewest])
    func aFilteredReadWalksOnlyTheTail(sql: StaticString) throws {
        try withStore { store, _ throws in
            try Self.fill(store)
            let tail = Int(100_000 - Self.indexedThrough)
            for source in ["late", "b7", "quiet", "gone"] {
                let run = try Self.run(sql, path: store.path, source: source, limit: 100, after: Self.indexedThrough)
                #expect(run.plan == ["SEARCH events USING INTEGER PRIMARY KEY (rowid>?)"], "\(run.plan)")
                #expect(run.fullScanSteps == 0)
                #expect(run.vmSteps < Int32(20 * (tail + 2)), "\(source): \(run.vmSteps) steps over a tail of \(tail)")
            }
            #expect(try Self.run(sql, path: store.path, source: "late", limit: 100, after: Self.indexedThrough).rows == 3)
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
            // Across the index's end: pages from the index, then from the tail.
            #expect(try store.events(after: 99_400, limit: 4, button: "b7").map(\.seq) == [99_463, 99_527, 99_591, 99_655])
            #expect(try store.events(after: 0, limit: 10, button: "late").map(\.seq) == [99_600, 99_700, 99_800])
            #expect(try store.latestEvents(limit: 2, button: "late").map(\.seq) == [99_700, 99_800])
            #expect(try store.latestEvents(limit: 9, button: "b7").map(\.seq) == stride(from: 99_463, through: 99_975, by: 64).map { Int64($0) })
        }
    }

    /// Wherever the index ends and whatever retention trimmed, a filtered page is exactly the
    /// source's events of the unfiltered log, in seq order, for every cursor and size.
    @Test func filteredPagesAreTheSameWhereverTheIndexEnds() throws {
        try withStore { store, _ throws in
            var random = SplitMix64(seed: 25)
            let sources = ["a", "b", "c", "quiet", "s1"]
            var seq: Int64 = 0
            for round in 0..<60 {
                let events = (0..<Int(random.next() % 90)).map { _ -> StoredEvent in
                    seq += 1
                    let pick = Int(random.next() % 100)
                    if pick < 5 { return event(seq, button: nil, sheet: "s1", type: "select") }
                    return event(seq, button: pick < 7 ? "quiet" : sources[pick % 3])
                }
                try store.commit(
                    events: events, states: [], deliveries: [], keepEvents: round % 7 == 6 ? 1500 : nil,
                    writeIndexes: random.next() % 3 == 0)
                let all = try store.events(after: 0, limit: 100_000, button: nil)
                for source in sources + ["gone"] {
                    let mine = all.filter { ($0.button ?? $0.sheet) == source }
                    for _ in 0..<4 {
                        let limit = Int(random.next() % 40) + 1
                        let after = Int64(random.next() % UInt64(seq + 2))
                        let expected = Array(mine.filter { $0.seq > after }.prefix(limit))
                        #expect(try store.events(after: after, limit: limit, button: source) == expected, "\(source) after \(after) limit \(limit)")
                        #expect(try store.latestEvents(limit: limit, button: source) == Array(mine.suffix(limit)), "\(source) newest \(limit)")
                    }
                }
            }
        }
    }

    /// Retention deletes the trimmed events' entries from the source index with them.
    @Test func retentionDeletesTheTrimmedEventsEntries() throws {
        try withStore { store, _ throws in
            let events = (1...3000).map { event(Int64($0), button: "b\($0 % 7)") }
            try store.commit(events: Array(events[..<2000]), states: [], deliveries: [], writeIndexes: true)
            try store.commit(events: Array(events[2000...]), states: [], deliveries: [], keepEvents: 1000, writeIndexes: true)
            let counts = try store.withReader { connection throws(StoreError) in
                (
                    try connection.statement("SELECT COUNT(*) FROM event_sources").scalar(),
                    try connection.statement("SELECT MIN(seq) FROM event_sources").scalar()
                )
            }
            // Seven buttons in turn: each write is a run a button. The first write's runs all end
            // in the trimmed events and go; the second's (2994 through 3000) stay.
            #expect(counts.0 == 7)
            #expect(counts.1 == 2994)
            #expect(try store.sourcesIndexedThrough() == 3000)
            #expect(try store.events(after: 0, limit: 3, button: "b1").map(\.seq) == [2003, 2010, 2017])
            #expect(try store.trimEvents(keep: 0) == 1000)
            #expect(try store.withReader { connection throws(StoreError) in try connection.statement("SELECT COUNT(*) FROM event_sources").scalar() } == 0)
            #expect(try store.latestEvents(limit: 5, button: "b1").isEmpty)
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
