import Outbox
import Testing

@testable import ButtonStore

/// The source index keeps a row a run of one source's consecutive events (a press's events are
/// one run), written from what the writer committed; the reads give the same pages.
@Suite struct IndexRunsTests {
    @Test func aSourcesEventsCloseTogetherAreOneRun() {
        var runs = IndexRuns()
        runs.append([event(5), event(6), event(7, button: nil, sheet: "panel"), event(8, button: nil, sheet: "panel")])
        runs.append([event(9, button: nil), event(10), event(11, button: "lamp"), event(12)])
        // door's run takes 10 and 12 across panel's and lamp's events (and a sourceless one).
        #expect(
            runs.runs == [
                .init(key: "door", first: 5, last: 12), .init(key: "panel", first: 7, last: 8),
                .init(key: "lamp", first: 11, last: 11),
            ])
        #expect(runs.cover(after: 4, through: 12))
        #expect(!runs.cover(after: 3, through: 12))
        #expect(!runs.cover(after: 4, through: 13))
        runs.append([event(14)])
        #expect(!runs.cover(after: 4, through: 14), "a gap: the index is written from the log instead")
        #expect(IndexRuns().cover(after: 7, through: 7))
        #expect(IndexRuns().cover(after: 7, through: nil))
        #expect(!IndexRuns().cover(after: 7, through: 8))
    }

    /// Sixteen buttons pressed in turn (three events a press) are an entry each, not an entry a
    /// press; a button pressed again only after more than `maxGap` other events starts a new run.
    @Test func buttonsPressedInTurnAreARunEach() {
        var runs = IndexRuns()
        var seq: Int64 = 0
        for _ in 0..<20 {
            for button in 0..<16 {
                runs.append((1...3).map { _ in seq += 1; return event(seq, button: "b\(button)") })
            }
        }
        #expect(runs.runs.count == 16)
        #expect(runs.runs.first == .init(key: "b0", first: 1, last: 19 * 48 + 3))
        let after = seq
        let maxGap = Int64(IndexRuns.maxGap)
        runs.append([event(after + maxGap, button: "b15")])
        runs.append((1...maxGap).map { event(after + maxGap + $0, button: "other") })
        runs.append([event(after + 2 * maxGap + 1, button: "b15")])
        #expect(runs.runs.count == 18)
        #expect(runs.runs[15] == .init(key: "b15", first: 46, last: after + maxGap), "maxGap - 1 events between: one run")
        #expect(runs.runs.last == .init(key: "b15", first: after + 2 * maxGap + 1, last: after + 2 * maxGap + 1),
                "maxGap events between: a new run")
    }

    /// Deliveries to 64 handlers in turn are a run a handler, though their ids (which follow
    /// the clock) are a thousand apart: the gap is counted in deliveries. The runs cover the
    /// log's deliveries only while their count agrees (a delivery enqueued outside a commit).
    @Test func deliveriesToHandlersInTurnAreARunEach() {
        var runs = IndexRuns()
        runs.append((1...1000).map { deliveryRow(Int64($0) * 1000, handler: "h\($0 % 64)") })
        #expect(runs.runs.count == 64)
        #expect(runs.runs.first == .init(key: "h1", first: 1000, last: 961_000))
        #expect(runs.cover(after: 999, through: 1_000_000, logged: 1000))
        #expect(!runs.cover(after: 999, through: 1_000_000, logged: 1001))
        #expect(!runs.cover(after: 1000, through: 1_000_000, logged: 1000))
        #expect(!runs.cover(after: 999, through: 1_000_001, logged: 1000))
        // h40's last (1000) and the next are `deliveriesMaxGap - 1` others apart: the same run;
        // then `maxGap`: a new one.
        let gap = IndexRuns.maxGap
        var id = 1000
        func others(_ count: Int) -> [DeliveryRow] { (0..<count).map { _ in id += 1; return deliveryRow(Int64(id) * 1000, handler: "other") } }
        runs.append(others(gap - 1) + [deliveryRow(Int64(id + 1) * 1000, handler: "h40")])
        id += 1
        let joined = Int64(id) * 1000
        runs.append(others(gap) + [deliveryRow(Int64(id + 1) * 1000, handler: "h40")])
        id += 1
        #expect(runs.runs.filter { $0.key == "h40" } == [
            .init(key: "h40", first: 40_000, last: joined), .init(key: "h40", first: Int64(id) * 1000, last: Int64(id) * 1000),
        ])
        #expect(runs.cover(after: 999, through: Int64(id) * 1000, logged: id))
        #expect(IndexRuns().cover(after: 7, through: 7, logged: 0))
        runs.forget()
        #expect(!runs.cover(after: 999, through: Int64(id) * 1000, logged: id))
    }

    /// A bulk write inserts one entry a run (`first` NULL for a run of one); the filtered pages
    /// are those of the unfiltered log, the other sources' events inside a run skipped.
    @Test func theIndexKeepsAnEntryARun() throws {
        try withStore { store, _ throws in
            try store.commit(events: [event(1), event(2), event(3, button: nil, sheet: "panel")], states: [], deliveries: [])
            try store.commit(
                events: [event(4, button: nil, sheet: "panel"), event(5), event(6, button: "lamp")], states: [], deliveries: [],
                writeIndexes: true)
            let entries = try store.withReader { connection throws(StoreError) in
                try connection.statement("SELECT source, seq, first FROM event_sources ORDER BY seq").rows {
                    "\($0.text(0)) \($0.int64(1)) \($0.optionalInt64(2).map(String.init) ?? "-")"
                }
            }
            #expect(entries == ["panel 4 3", "door 5 1", "lamp 6 -"])
            #expect(try store.sourcesIndexedThrough() == 6)
            #expect(try store.events(after: 0, limit: 10, button: "door").map(\.seq) == [1, 2, 5])
            #expect(try store.events(after: 1, limit: 2, button: "door").map(\.seq) == [2, 5])
            #expect(try store.latestEvents(limit: 2, button: "door").map(\.seq) == [2, 5])
            #expect(try store.latestEvents(limit: 10, button: "panel").map(\.seq) == [3, 4])
            // Retention keeps a run that ends after the trimmed events; the read finds its rest.
            #expect(try store.trimEvents(keep: 3) == 3)
            #expect(try store.events(after: 0, limit: 10, button: "panel").map(\.seq) == [4])
            #expect(try store.latestEvents(limit: 10, button: "door").map(\.seq) == [5])
        }
    }

    /// Committed events the writer did not see follow one another (here a store opened on a
    /// tail it did not write) are indexed from the log, an entry an event.
    @Test func aTailTheWriterDidNotSeeIsIndexedFromTheLog() throws {
        try withTemporaryDirectory { base in
            do {
                let first = try ButtonStore(directory: base, clock: .system)
                try first.commit(events: [event(1), event(2)], states: [], deliveries: [])
                first.close()
            }
            let store = try ButtonStore(directory: base, clock: .system)
            defer { store.close() }
            try store.commit(events: [event(3), event(4)], states: [], deliveries: [], writeIndexes: true)
            let entries = try store.withReader { connection throws(StoreError) in
                try connection.statement("SELECT seq, first FROM event_sources ORDER BY seq").rows { "\($0.int64(0)) \($0.optionalInt64(1) ?? 0)" }
            }
            #expect(entries == ["1 0", "2 0", "3 0", "4 0"])
            #expect(try store.events(after: 0, limit: 10, button: "door").map(\.seq) == [1, 2, 3, 4])
        }
    }

    /// A version-15 index (an entry an event) is the same index of runs of one event.
    @Test func aVersion15IndexKeepsItsEntries() throws {
        try withTemporaryDirectory { base in
            try makeOldDatabase(
                in: base, version: 15,
                filling: """
                    INSERT INTO events (seq, type, button, sheet, t, id, json) VALUES
                        (1, 'tap', 'door', NULL, 1000, 'evt_1', '{"seq":1}'), (2, 'select', NULL, 'panel', 2000, 'evt_2', '{"seq":2}'),
                        (3, 'tap', 'door', NULL, 3000, 'evt_3', '{"seq":3}'), (4, 'tap', 'door', NULL, 4000, 'evt_4', '{"seq":4}');
                    INSERT INTO event_sources (source, seq) VALUES ('door', 1), ('panel', 2), ('door', 3);
                    UPDATE meta SET value = 3 WHERE key = 'sources_through';
                    """)
            let store = try ButtonStore(directory: base, clock: .system)
            defer { store.close() }
            #expect(try store.userVersion() == ButtonStore.schemaVersion)
            #expect(try store.events(after: 0, limit: 10, button: "door").map(\.seq) == [1, 3, 4])
            #expect(try store.latestEvents(limit: 2, button: "door").map(\.seq) == [3, 4])
            #expect(try store.events(after: 0, limit: 10, button: "panel").map(\.seq) == [2])
        }
    }
}

/// Retention names the sources of the trimmed entries from the index's writes, and reads the
/// trimmed events instead only while some entry's source may be unknown.
@Suite struct IndexedSourcesTests {
    @Test func theSourcesOfTheTrimmedEntriesAreThoseOfTheWritesBeforeThem() {
        var indexed = IndexedSources()
        #expect(indexed.sources(through: 5) == nil, "entries written before: unknown")
        indexed.wrote(after: 100, through: 200, sources: ["a", "b"])
        indexed.wrote(after: 200, through: 300, sources: ["c"])
        #expect(indexed.sources(through: 150) == nil, "entries through 100 are still unknown")
        indexed.trimmed(through: 150)
        #expect(indexed.sources(through: 160) == ["a", "b"])
        #expect(indexed.sources(through: 250) == ["a", "b", "c"])
        indexed.trimmed(through: 250)
        #expect(indexed.writes.map(\.through) == [300])
        #expect(indexed.sources(through: 260) == ["c"])
        indexed.wroteFromTheLog(through: 400)
        #expect(indexed.sources(through: 310) == nil)
        indexed.trimmed(through: 400)
        #expect(indexed.sources(through: 410) == [])
        indexed.forget()
        #expect(indexed.sources(through: 410) == nil)
        #expect(IndexedSources(sources: ["x"], through: 50).sources(through: 10) == ["x"])
    }

    /// Opened on an index written before, the store knows its sources (they are few), and
    /// retention deletes the trimmed entries by source.
    @Test func retentionAfterAnOpenDeletesByTheSourcesTheIndexHolds() throws {
        try withTemporaryDirectory { base in
            do {
                let first = try ButtonStore(directory: base, clock: .system)
                try first.commit(events: (1...30).map { event($0, button: "b\($0 % 3)") }, states: [], deliveries: [], writeIndexes: true)
                first.close()
            }
            let store = try ButtonStore(directory: base, clock: .system)
            defer { store.close() }
            try store.indexSources()
            #expect(store.bulkIndexes.withLock { $0.indexed.sources(through: 10) } == ["b0", "b1", "b2"])
            try store.commit(events: (31...40).map { event($0, button: "b\($0 % 3)") }, states: [], deliveries: [], keepEvents: 15, writeIndexes: true)
            let entries = try store.withReader { connection throws(StoreError) in
                try connection.statement("SELECT MIN(seq), COUNT(*) FROM event_sources").rows { [$0.int64(0), $0.int64(1)] }
            }
            // Each button's events are one run: none of them ends in the trimmed events.
            #expect(entries == [[28, 6]])
            #expect(try store.events(after: 0, limit: 100, button: "b1").map(\.seq) == [28, 31, 34, 37, 40])
        }
    }
}

/// A batch that continues the log is numbered by SQLite (the largest seq plus one, the same
/// numbers); any other keeps the seqs it was given.
@Suite struct EventNumberingTests {
    @Test func everyBatchKeepsItsSeqs() throws {
        try withStore { store, _ throws in
            try store.commit(events: [event(1), event(2)], states: [], deliveries: [])
            try store.commit(events: [event(5), event(6), event(7)], states: [], deliveries: [])
            try store.commit(events: [event(8), event(10)], states: [], deliveries: [])
            try store.commit(events: [event(11)], states: [], deliveries: [])
            #expect(try store.events(after: 0, limit: 100, button: nil).map(\.seq) == [1, 2, 5, 6, 7, 8, 10, 11])
            #expect(try store.trimEvents(keep: 0) == 8)
            try store.commit(events: [event(12), event(13)], states: [], deliveries: [])
            #expect(try store.events(after: 0, limit: 100, button: nil).map(\.seq) == [12, 13])
            #expect(try store.events(after: 0, limit: 100, button: nil).map(\.json) == [event(12).json, event(13).json])
        }
    }
}
