import Delivery
import Handlers
import Foundation
import Testing

@testable import ButtonStore

/// Upgrading a database made by an older buttond keeps what it holds.
@Suite struct MigrationTests {
    /// A version-5 database (the text-keyed outbox) with a pending, a retried and a delivered
    /// delivery: after the upgrade each is in the delivery log, in the same order, with its
    /// attempts, and the pending ones are still pending.
    @Test func theOutboxBecomesTheDeliveryLog() throws {
        try withTemporaryDirectory { base in
            try makeOldDatabase(
                in: base, version: 5,
                filling: """
                    INSERT INTO outbox VALUES ('dlv_b', 'h1', 2, '{"id":"evt_2","seq":2,"type":"tap","button":"door","t":2000,"data":{}}', 'pending', 1, 9000, 2001);
                    INSERT INTO outbox VALUES ('dlv_a', 'h1', 1, '{"id":"evt_1","seq":1,"type":"toggle","button":"door","t":1000,"data":{"face":1}}', 'ok', 1, 0, 1001);
                    INSERT INTO outbox VALUES ('dlv_c', 'h2', 3, '{"id":"evt_3","seq":3,"type":"select","sheet":"s","t":3000,"data":{"option":"go"}}', 'in_flight', 0, 3001, 3001);
                    INSERT INTO attempts VALUES ('dlv_a', 1, 1002, 5, 'ok', 204, NULL, '');
                    INSERT INTO attempts VALUES ('dlv_b', 1, 2002, 5, 'http_status', 500, NULL, 'oops');
                    INSERT INTO handlers (id, owner, position, config, secret, enabled) VALUES
                        ('h1', 'button:door', 0, '{"id":"h1","button":"door","on":["tap","long-press"],"enabled":true,"webhook":{"url":"http://x/h","headers":{"A":"b"},"timeoutMs":2000,"maxAttempts":3,"expireAfterMs":60000}}', 'whsec_k', 1),
                        ('h2', 'sheet:s', 1, '{"id":"h2","sheet":"s","on":["select"],"option":"go","enabled":false,"script":{"name":"run.sh","args":["{button}","x"],"timeoutMs":5000,"maxAttempts":1}}', NULL, 0);
                    """)
            let store = try ButtonStore(directory: base, clock: .system)
            defer { store.close() }
            #expect(try store.userVersion() == ButtonStore.schemaVersion)
            var hook = WebhookAction(url: "http://x/h")
            hook.headers = ["A": "b"]
            hook.timeoutMs = 2000
            var run = ScriptAction(name: "run.sh")
            run.args = ["{button}", "x"]
            run.timeoutMs = 5000
            #expect(
                try store.loadHandlers() == [
                    StoredHandler(
                        Handler(
                            id: "h1", owner: .button("door"), on: [.tap, .longPress], action: .webhook(hook), maxAttempts: 3,
                            expireAfterMs: 60_000), position: 0, secret: "whsec_k"),
                    StoredHandler(
                        Handler(
                            id: "h2", owner: .sheet("s"), on: [.select], option: "go", enabled: false, action: .script(run),
                            maxAttempts: 1), position: 1),
                ])
            let log = try store.deliveries(handler: nil, status: nil, before: nil, limit: 10)
            #expect(log.map(\.event.seq) == [3, 2, 1])
            #expect(log.map(\.status) == [.pending, .pending, .ok])
            #expect(try store.pendingDeliveries().map(\.event.seq) == [2, 3])
            let flip = try #require(log.last)
            #expect(flip.event.type == .toggle)
            #expect(flip.event.face == 1)
            #expect(flip.event.source == .button("door"))
            #expect(log.first?.event.source == .sheet("s"))
            #expect(log.first?.event.option == "go")
            #expect(try store.attempts(delivery: log[1].id).map(\.output) == ["oops"])
            #expect(try store.attempts(delivery: flip.id).map(\.statusCode) == [204])
        }
    }

    /// Version 10 indexed the events' source on `events`; version 14 moves that index to
    /// `event_sources`, written in bulk: a version-9 log keeps its events, no index on `events`
    /// is left (neither the sheets' nor the source's), every event is indexed and its filtered
    /// pages are the same.
    @Test func theEventsGetOneIndexOnTheirSource() throws {
        try withTemporaryDirectory { base in
            try makeOldDatabase(
                in: base, version: 9,
                filling: """
                    INSERT INTO events VALUES (1, 'evt_1', 'tap', 'door', NULL, 1000, '{}');
                    INSERT INTO events VALUES (2, 'evt_2', 'select', NULL, 'panel', 2000, '{}');
                    INSERT INTO events VALUES (3, 'evt_3', 'tap', 'door', NULL, 3000, '{}');
                    """)
            let store = try ButtonStore(directory: base, clock: .system)
            defer { store.close() }
            #expect(try store.userVersion() == ButtonStore.schemaVersion)
            let indexes = try indexNames(store, table: "events")
            #expect(indexes.isEmpty)
            let entries = try store.withReader { connection throws(StoreError) in
                try connection.statement("SELECT source, seq FROM event_sources").rows { "\($0.text(0)) \($0.int64(1))" }
            }
            #expect(entries == ["door 1", "door 3", "panel 2"])
            #expect(try store.sourcesIndexedThrough() == 3)
            #expect(try store.events(after: 0, limit: 10, button: "door").map(\.seq) == [1, 3])
            #expect(try store.latestEvents(limit: 10, button: "panel").map(\.seq) == [2])
        }
    }

    /// Rows of the delivery log as versions 15 to 19 keep them, a tap of `door` each: (id,
    /// handler, status), one attempt made for each finished one.
    static func deliveries(_ rows: [(Int, String, Int)]) -> String {
        let values = rows.map { id, handler, status in
            "(\(id), '\(handler)', \(status), \(status > 0 ? 1 : 0), 0, \(id * 100), \(id), 'evt_\(id)', 'tap', 'door', \(id * 100 - 10), '{}')"
        }
        return """
            INSERT INTO deliveries (id, handler, status, attempts, next_attempt_at, created_at, event_seq, event_id,
                event_type, button, t, event) VALUES
            \(values.joined(separator: ",\n")) ;

            """
    }

    /// A version-18 index whose entries are single deliveries, one of them after the extent (a
    /// handler test indexed itself there): each delivery is listed once after the upgrade, and
    /// deleting the handler takes them all.
    @Test func aVersion18HandlerIndexBecomesRuns() throws {
        try withTemporaryDirectory { base in
            try makeOldDatabase(
                in: base, version: 18,
                filling: Self.deliveries([(1, "h1", 1), (2, "h1", 1), (3, "h1", 0), (4, "h1", 0)]) + """
                    INSERT INTO delivery_handlers (handler, id) VALUES ('h1', 1), ('h1', 2), ('h1', 3);
                    UPDATE meta SET value = 2 WHERE key = 'handlers_through';
                    """)
            let store = try ButtonStore(directory: base, clock: .system)
            defer { store.close() }
            try store.indexDeliveryHandlers()
            #expect(try store.deliveries(handler: "h1", status: nil, before: nil, limit: 10).map(\.id) == [4, 3, 2, 1])
            #expect(try store.deliveries(handler: "h1", status: nil, before: 4, limit: 2).map(\.id) == [3, 2])
            _ = try store.deleteHandler(id: "h1")
            #expect(try store.deliveries(handler: nil, status: nil, before: nil, limit: 10).isEmpty)
        }
    }

    @Test func theDeliveriesHandlerIndexLeavesTheCommit() throws {
        try withTemporaryDirectory { base in
            try makeOldDatabase(
                in: base, version: 17,
                filling: Self.deliveries([(1, "h1", 1), (2, "h2", 0), (3, "h1", 0)]) + """
                    INSERT INTO delivery_attempts VALUES (1, 1, 101, 5, 'ok', 204, NULL, '');
                    """)
            let store = try ButtonStore(directory: base, clock: .system)
            defer { store.close() }
            #expect(try store.userVersion() == ButtonStore.schemaVersion)
            let indexes = try indexNames(store, table: "deliveries")
            #expect(indexes == ["deliveries_pending", "deliveries_unsent"])
            let entries = try store.withReader { connection throws(StoreError) in
                try connection.statement("SELECT handler, id FROM delivery_handlers").rows { "\($0.text(0)) \($0.int64(1))" }
            }
            #expect(entries == ["h1 1", "h1 3", "h2 2"])
            #expect(try store.deliveries(handler: "h1", status: nil, before: nil, limit: 10).map(\.id) == [3, 1])
            #expect(try store.deliveries(handler: "h1", status: .ok, before: nil, limit: 10).map(\.id) == [1])
            #expect(try store.deliveries(handler: "h2", status: nil, before: nil, limit: 10).map(\.id) == [2])
            #expect(try store.lastDeliveryID() == 3)
        }
    }
}
