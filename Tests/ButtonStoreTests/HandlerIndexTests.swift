import CSQLite
import Outbox
import TestSupport
import Testing

@testable import ButtonStore

/// A handler's delivery log is read from the handler index (written in bulk with the source
/// index, never in every commit) and the log's tail after it, as one: the same rows, in the
/// same order, as a walk of the whole log would give, wherever the index's extent stands.
@Suite struct HandlerIndexTests {
    static let handlers = ["h0", "h1", "h2", "quiet"]

    /// A handler's rows as a walk of the whole log filters them: what the index must agree with.
    static func walk(_ store: ButtonStore, _ handler: String, _ status: DeliveryStatus?) throws -> [Int64] {
        try store.deliveries(handlers: nil, source: nil, status: nil, attempted: false, before: nil, limit: 1_000_000)
            .filter { $0.handler == handler && (status == nil || $0.status == status) }.map(\.id)
    }

    /// Every page of `limit` rows, following `before` from the newest on.
    static func pages(_ store: ButtonStore, _ handler: String, _ status: DeliveryStatus?, limit: Int) throws -> [Int64] {
        var all: [Int64] = []
        var before: Int64? = nil
        while true {
            let page = try store.deliveries(handler: handler, status: status, before: before, limit: limit).map(\.id)
            #expect(page.count <= limit)
            all += page
            guard page.count == limit, let last = page.last else { return all }
            before = last
        }
    }

    static func expectAgreement(_ store: ButtonStore, _ step: String) throws {
        for handler in handlers + ["gone"] {
            for status in [nil, DeliveryStatus.pending, .ok, .failed] {
                let expected = try walk(store, handler, status)
                for limit in [1, 3, 1000] {
                    #expect(try pages(store, handler, status, limit: limit) == expected, "\(step): \(handler) \(String(describing: status)) by \(limit)")
                }
            }
        }
    }

    @Test func aHandlersPagesAgreeWithTheLogWhereverTheIndexStands() throws {
        try withStore { store, _ throws in
            for handler in Self.handlers { try store.upsertHandler(storedHandler(handler, owner: "button:door")) }
            var random = SplitMix64(seed: 43)
            var id: Int64 = 1000
            var seq: Int64 = 1
            for batch in 0..<60 {
                // A commit's deliveries, to the busy handlers mostly and now and then the quiet one.
                let rows = (0..<Int(random.next() % 5)).map { _ -> DeliveryRow in
                    id += 1 + Int64(random.next() % 3)
                    let handler = random.next() % 10 == 0 ? "quiet" : "h\(random.next() % 3)"
                    return deliveryRow(id, handler: handler, eventSeq: seq)
                }
                try store.commit(events: [event(seq)], states: [], deliveries: rows, writeIndexes: random.next() % 4 == 0)
                seq += 1
                // Some attempts end, and past a small retention the oldest finished go.
                let ending = rows.filter { _ in random.next() % 2 == 0 }.map { row in
                    FinishedAttempt(DeliveryLogTests.attempt(row.id, 1), status: random.next() % 3 == 0 ? .failed : .ok, nextAttemptAt: 0)
                }
                let finished = try store.finishedDeliveryCount()
                try store.record(ending, retention: Retention(keep: 40, slack: 4, finishedBefore: finished))
                if batch % 15 == 14 { try Self.expectAgreement(store, "batch \(batch)") }
            }
            try Self.expectAgreement(store, "at the end")
            #expect(try store.deliveries(handler: "quiet", status: nil, before: nil, limit: 1000).isEmpty == false)
            // Trimmed deliveries leave the index with their rows: its runs span what the log
            // holds through its extent, each row once, and each run spans a row of its own.
            try Self.expectRunsCoverTheLog(store)
            let through = try store.withReader { connection throws(StoreError) in
                try connection.statement(ButtonStore.handlersThrough).scalar() ?? 0
            }
            #expect(through > 1000)

            // A handler deleted takes its rows from the index and the tail alike.
            try store.commit(events: [event(seq)], states: [], deliveries: [deliveryRow(id + 1, handler: "h1")], writeIndexes: true)
            #expect(try store.deliveries(handler: "h1", status: nil, before: nil, limit: 1000).first?.id == id + 1)
            #expect(try store.deleteHandler(id: "h1"))
            #expect(try store.deliveries(handler: "h1", status: nil, before: nil, limit: 1000).isEmpty)
            #expect(try Self.walk(store, "h1", nil).isEmpty)
            #expect(try Self.walk(store, "h0", nil).isEmpty == false)
            try Self.expectAgreement(store, "after deleting h1")
            // The index's extent stays past its newest id, and so do new ids: a new delivery
            // lands in the tail, where a read finds it.
            let next = try store.lastDeliveryID() + 1
            #expect(next > id + 1)
            try store.commit(events: [event(seq + 1)], states: [], deliveries: [deliveryRow(next, handler: "h0")])
            #expect(try store.deliveries(handler: "h0", status: nil, before: nil, limit: 1).map(\.id) == [next])
        }
    }

    /// The index's runs against the log: every delivery through the extent is spanned by
    /// exactly one run of its handler, and every run spans at least one delivery of its own
    /// handler (retention took the others with their rows).
    static func expectRunsCoverTheLog(_ store: ButtonStore, _ step: String = "") throws {
        let (runs, through) = try store.withReader { connection throws(StoreError) in
            let runs = try connection.statement("SELECT handler, COALESCE(first, id), id FROM delivery_handlers")
                .rows { ($0.text(0), $0.int64(1), $0.int64(2)) }
            return (runs, try connection.statement(ButtonStore.handlersThrough).scalar() ?? 0)
        }
        let logged = try store.deliveries(handler: nil, status: nil, before: nil, limit: 1_000_000)
        for row in logged where row.id <= through {
            let spanning = runs.filter { $0.0 == row.handler && $0.1 <= row.id && row.id <= $0.2 }
            #expect(spanning.count == 1, "\(step): delivery \(row.id) of \(row.handler) is in \(spanning.count) runs")
        }
        for run in runs {
            #expect(run.1 <= run.2 && run.2 <= through, "\(step): run \(run)")
            #expect(logged.contains { $0.handler == run.0 && run.1 <= $0.id && $0.id <= run.2 }, "\(step): run \(run) spans none")
        }
    }

    /// A bulk write of a thousand deliveries to a few handlers in turn writes a run a handler,
    /// not an entry a delivery; one after `maxGap` deliveries to others or more starts a run.
    @Test func aBulkWriteIsARunAHandler() throws {
        try withStore { store, _ throws in
            let rows = (1...1000).map { deliveryRow(Int64($0), handler: "h\($0 % 16)") }
                + (1001...1256).map { deliveryRow(Int64($0), handler: "h0") } + [deliveryRow(1257, handler: "h3")]
            try store.commit(events: [event(1)], states: [], deliveries: rows, writeIndexes: true)
            let count = try store.withReader { connection throws(StoreError) in
                try connection.statement("SELECT COUNT(*) FROM delivery_handlers").scalar() ?? -1
            }
            #expect(count == 17)
            try Self.expectRunsCoverTheLog(store)
            #expect(try store.deliveries(handler: "h3", status: nil, before: nil, limit: 3).map(\.id) == [1257, 995, 979])
        }
    }

    /// A handler deleted before the bulk write that would index its deliveries leaves no run
    /// behind: its deliveries went with it.
    @Test func aHandlerDeletedBeforeTheBulkWriteLeavesNoRun() throws {
        try withStore { store, _ throws in
            for handler in ["h1", "h2"] { try store.upsertHandler(storedHandler(handler, owner: "button:door")) }
            try store.commit(events: [event(1)], states: [], deliveries: (1...10).map { deliveryRow($0, handler: "h\($0 % 2 + 1)") })
            #expect(try store.deleteHandler(id: "h2"))
            try store.commit(events: [event(2)], states: [], deliveries: [deliveryRow(11, handler: "h1")], writeIndexes: true)
            let keys = try store.withReader { connection throws(StoreError) in
                try connection.statement("SELECT handler FROM delivery_handlers").rows { $0.text(0) }
            }
            #expect(keys == ["h1"])
            try Self.expectRunsCoverTheLog(store)
        }
    }

    /// A delivery outside an event commit (a handler test) takes its id before its transaction:
    /// a bulk write in between moves the extent past it, and it must still be listed.
    @Test func aDeliveryWhoseIdWasTakenBeforeABulkWriteIsListed() throws {
        try withStore { store, _ throws in
            try store.commit(
                events: [event(1)], states: [], deliveries: (10...20).map { deliveryRow($0, handler: "h1") }, writeIndexes: true)
            try store.enqueue([deliveryRow(5, handler: "h1"), deliveryRow(6, handler: "h2")])
            #expect(try store.deliveries(handler: "h1", status: nil, before: nil, limit: 100).map(\.id) == Array((10...20).reversed()) + [5])
            #expect(try store.deliveries(handler: "h2", status: nil, before: nil, limit: 100).map(\.id) == [6])
            #expect(try store.deliveries(handler: "h1", status: .pending, before: 10, limit: 100).map(\.id) == [5])
            // One inside a run of its handler is found through that run, once; one inside
            // another handler's run is a run of its own.
            try store.commit(
                events: [event(2)], states: [], deliveries: [30, 32, 34].map { deliveryRow($0, handler: "h1") }, writeIndexes: true)
            try store.enqueue([deliveryRow(33, handler: "h1"), deliveryRow(31, handler: "h2")])
            #expect(try store.deliveries(handler: "h1", status: nil, before: nil, limit: 4).map(\.id) == [34, 33, 32, 30])
            #expect(try store.deliveries(handler: "h2", status: nil, before: nil, limit: 100).map(\.id) == [31, 6])
            try Self.expectRunsCoverTheLog(store)
            // One after the extent is in the tail; the next bulk write, which did not see it
            // committed, indexes from the log.
            try store.enqueue([deliveryRow(40, handler: "h1")])
            try store.commit(
                events: [event(3)], states: [], deliveries: [41, 42].map { deliveryRow($0, handler: "h1") }, writeIndexes: true)
            #expect(try store.deliveries(handler: "h1", status: nil, before: nil, limit: 5).map(\.id) == [42, 41, 40, 34, 33])
            try Self.expectRunsCoverTheLog(store)
        }
    }

    /// What a commit writes: the deliveries' rows and no handler index entry (that is the bulk
    /// write's), so a commit to many handlers dirties no page per handler.
    @Test func aCommitWritesNoHandlerIndexEntry() throws {
        try withStore { store, _ throws in
            try store.commit(events: [event(1)], states: [], deliveries: (1...8).map { deliveryRow($0, handler: "h\($0)") })
            let count = { try store.withReader { connection throws(StoreError) in
                try connection.statement("SELECT COUNT(*) FROM delivery_handlers").scalar() ?? -1
            } }
            #expect(try count() == 0)
            #expect(try store.deliveries(handler: "h3", status: nil, before: nil, limit: 10).map(\.id) == [3])
            try store.commit(events: [event(2)], states: [], deliveries: [], writeIndexes: true)
            #expect(try count() == 8)
            #expect(try store.deliveries(handler: "h3", status: nil, before: nil, limit: 10).map(\.id) == [3])
            let indexes = try indexNames(store, table: "deliveries")
            #expect(indexes == ["deliveries_pending", "deliveries_unsent"])
        }
    }

    /// A quiet handler's page over a long log seeks its index entries: the steps it takes are
    /// bounded by its page and by the tail, not by the log.
    @Test func aQuietHandlersPageSeeksTheIndex() throws {
        try withStore { store, _ throws in
            var id: Int64 = 0
            for batch in 0..<100 {
                let rows = (0..<200).map { k -> DeliveryRow in
                    id += 1
                    return deliveryRow(id, handler: batch == 3 && k < 5 ? "quiet" : "h\(k % 64)")
                }
                try store.commit(events: [event(Int64(batch + 1))], states: [], deliveries: rows, writeIndexes: batch < 99)
            }
            let through: Int64 = 19_800
            let indexed = try Self.run(ButtonStore.handlerIndexed, path: store.path, through: through, handler: "quiet", limit: 50)
            #expect(indexed.rows == 5)
            // An entry is a run of the handler's deliveries: a range of ids, each run's ids put
            // in order on their own; then the page's rows, each by its id.
            #expect(indexed.plan.contains("SEARCH h USING PRIMARY KEY (handler=? AND id<?)"), "\(indexed.plan)")
            #expect(indexed.plan.contains("SEARCH d USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"), "\(indexed.plan)")
            #expect(indexed.plan.contains("SEARCH d USING INTEGER PRIMARY KEY (rowid=?)"), "\(indexed.plan)")
            #expect(indexed.plan.filter { $0.hasPrefix("SCAN") } == ["SCAN page"], "\(indexed.plan)")
            #expect(indexed.fullScanSteps == 0)
            // A run may hold fewer than `maxGap` deliveries to others between two of its own,
            // which the read steps over.
            #expect(indexed.vmSteps < (60 + 8 * Int32(IndexRuns.maxGap)) * Int32(indexed.rows + 2), "\(indexed.vmSteps) steps")
            let tail = try Self.run(ButtonStore.handlerTail, path: store.path, through: through, handler: "quiet", limit: 50)
            #expect(tail.rows == 0)
            #expect(tail.plan.first == "SEARCH d USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)", "\(tail.plan)")
            #expect(tail.vmSteps < 20 * Int32(id - through + 2), "\(tail.vmSteps) steps over a tail of \(id - through)")
        }
    }

    /// One run of `sql` with `handlerTail`'s parameters, no status given.
    static func run(_ sql: StaticString, path: String, through: Int64, handler: String, limit: Int) throws -> QueryRun {
        try QueryRun(sql, path: path) { statement in
            sqlite3_bind_int64(statement, 1, through)
            sqlite3_bind_int64(statement, 2, .max)
            QueryRun.bind(handler, at: 3, to: statement)
            sqlite3_bind_int64(statement, 4, Int64(limit))
        }
    }
}
