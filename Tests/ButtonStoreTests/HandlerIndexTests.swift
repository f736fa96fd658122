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
            // Trimmed deliveries leave the index with their rows: it holds what the log holds.
            let entries = try store.withReader { connection throws(StoreError) in
                try connection.statement("SELECT id FROM delivery_handlers ORDER BY id").rows { $0.int64(0) }
            }
            let through = try store.withReader { connection throws(StoreError) in
                try connection.statement(ButtonStore.handlersThrough).scalar() ?? 0
            }
            let logged = try store.deliveries(handler: nil, status: nil, before: nil, limit: 1_000_000).map(\.id)
            #expect(entries == logged.filter { $0 <= through }.sorted())
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
            #expect(indexes == ["deliveries_status"])
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
            #expect(indexed.plan.first?.hasPrefix("SEARCH h USING PRIMARY KEY (handler=?") == true, "\(indexed.plan)")
            #expect(indexed.plan.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") } == false, "\(indexed.plan)")
            #expect(indexed.fullScanSteps == 0)
            #expect(indexed.vmSteps < 60 * Int32(indexed.rows + 2), "\(indexed.vmSteps) steps")
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
