import Outbox
import ButtonStore
import Testing

/// The delivery log as the dispatcher and the API use it.
@Suite struct DeliveryLogTests {
    static func attempt(_ delivery: Int64, _ number: Int, outcome: String = "ok") -> StoredAttempt {
        StoredAttempt(
            delivery: delivery, number: number, startedAt: 1_000 * Int64(number), durationMs: 5, outcome: outcome,
            statusCode: outcome == "ok" ? 204 : 500, output: "answer \(number)")
    }

    @Test func rowsRoundTripWithTheirEventFacts() throws {
        try withStore { store, _ throws in
            let rows = [deliveryRow(1), deliveryRow(2, eventSeq: 2), deliveryRow(3, eventSeq: 3)]
            try store.enqueue(rows)
            for row in rows { #expect(try store.delivery(id: row.id) == row) }
            #expect(try store.delivery(id: 3)?.payload == Array("shaped-3".utf8))
            #expect(try store.delivery(id: 1)?.payload == rows[0].event.json)
            #expect(try store.delivery(id: 99) == nil)
            #expect(try store.pendingDeliveries().map(\.id) == [1, 2, 3])
            #expect(try store.lastDeliveryID() == 3)
        }
    }

    @Test func recordingFinishesAndReschedules() throws {
        try withStore { store, _ throws in
            try store.enqueue([deliveryRow(1), deliveryRow(2)])
            try store.record([
                .init(Self.attempt(1, 1, outcome: "http_status"), status: .pending, nextAttemptAt: 9_000),
                .init(Self.attempt(2, 1), status: .ok, nextAttemptAt: 0),
            ])
            #expect(try store.delivery(id: 1)?.status == .pending)
            #expect(try store.delivery(id: 1)?.nextAttemptAt == 9_000)
            #expect(try store.delivery(id: 1)?.attempts == 1)
            #expect(try store.delivery(id: 2)?.status == .ok)
            #expect(try store.pendingDeliveries().map(\.id) == [1])
            #expect(try store.finishedDeliveryCount() == 1)
            try store.record([.init(Self.attempt(1, 2), status: .failed, nextAttemptAt: 0)])
            #expect(try store.attempts(delivery: 1).map(\.outcome) == ["http_status", "ok"])
            #expect(try store.attempts(delivery: 1).first?.output == "answer 1")
            // A redelivery makes a finished one pending again.
            #expect(try store.reschedule(delivery: 1, at: 12_000))
            #expect(try store.delivery(id: 1)?.status == .pending)
            #expect(try store.reschedule(delivery: 42, at: 12_000) == false)
        }
    }

    @Test func anAttemptOfADeletedDeliveryIsDropped() throws {
        try withStore { store, _ throws in
            try store.upsertHandler(storedHandler("h1", owner: "button:door"))
            try store.enqueue([deliveryRow(1)])
            #expect(try store.deleteHandler(id: "h1"))
            #expect(try store.record([.init(Self.attempt(1, 1), status: .ok, nextAttemptAt: 0)]).finished == 0)
            #expect(try store.delivery(id: 1) == nil)
            #expect(try store.attempts(delivery: 1).isEmpty)
        }
    }

    @Test func deletingAHandlerTakesItsWholeLog() throws {
        try withStore { store, _ throws in
            try store.upsertButton(id: "door", config: "{}")
            try store.upsertHandler(storedHandler("h1", owner: "button:door"))
            try store.upsertHandler(storedHandler("h2", owner: "button:door"))
            try store.enqueue([deliveryRow(1, handler: "h1"), deliveryRow(2, handler: "h2"), deliveryRow(3, handler: "h1")])
            try store.record([.init(Self.attempt(1, 1), status: .ok, nextAttemptAt: 0)])
            #expect(try store.deleteHandler(id: "h1"))
            #expect(try store.deliveries(handler: nil, status: nil, before: nil, limit: 10).map(\.id) == [2])
            #expect(try store.attempts(delivery: 1).isEmpty)
            #expect(try store.deleteButton(id: "door"))
            #expect(try store.deliveries(handler: nil, status: nil, before: nil, limit: 10).isEmpty)
        }
    }

    @Test func listingIsNewestFirstWithFiltersAndPages() throws {
        try withStore { store, _ throws in
            try store.enqueue((1...6).map { deliveryRow($0, handler: $0 % 2 == 0 ? "even" : "odd") })
            try store.record([2, 3, 4].map { .init(Self.attempt($0, 1), status: .ok, nextAttemptAt: 0) })
            try store.record([.init(Self.attempt(5, 1), status: .failed, nextAttemptAt: 0)])
            func ids(_ handler: String?, _ status: DeliveryStatus?, before: Int64? = nil, limit: Int = 10) throws -> [Int64] {
                try store.deliveries(handler: handler, status: status, before: before, limit: limit).map(\.id)
            }
            #expect(try ids(nil, nil) == [6, 5, 4, 3, 2, 1])
            #expect(try ids(nil, nil, limit: 2) == [6, 5])
            #expect(try ids(nil, nil, before: 5, limit: 2) == [4, 3])
            #expect(try ids("even", nil) == [6, 4, 2])
            #expect(try ids("even", nil, before: 6) == [4, 2])
            #expect(try ids(nil, .ok) == [4, 3, 2])
            #expect(try ids(nil, .ok, before: 4) == [3, 2])
            #expect(try ids("odd", .ok) == [3])
            #expect(try ids(nil, .failed) == [5])
            #expect(try ids(nil, .pending) == [6, 1])
            #expect(try ids(nil, nil, limit: 0) == [])
        }
    }

    @Test func trimmingDropsTheOldestFinishedAndTheirAttempts() throws {
        try withStore { store, _ throws in
            try store.enqueue((1...10).map { deliveryRow($0) })
            // 1 and 4 stay pending: never trimmed, however old.
            let finished = [2, 3, 5, 6, 7, 8, 9, 10].map { FinishedAttempt(Self.attempt($0, 1), status: .ok, nextAttemptAt: 0) }
            #expect(try store.record(finished).finished == 8)
            #expect(try store.record([], retention: .init(keep: 5, slack: 0, finishedBefore: 8)).trimmed == 3)
            #expect(try store.deliveries(handler: nil, status: nil, before: nil, limit: 20).map(\.id) == [10, 9, 8, 7, 6, 4, 1])
            #expect(try store.attempts(delivery: 2).isEmpty)
            #expect(try store.attempts(delivery: 6).count == 1)
            #expect(try store.finishedDeliveryCount() == 5)
            // Within the slack nothing goes; past it, down to what is kept.
            #expect(try store.record([], retention: .init(keep: 0, slack: 5, finishedBefore: 5)).trimmed == 0)
            #expect(try store.record([], retention: .init(keep: 0, slack: 4, finishedBefore: 5)).trimmed == 5)
            #expect(try store.pendingDeliveries().map(\.id) == [1, 4])
        }
    }

    @Test func concurrentCallersAreSerialized() async throws {
        try await withTemporaryDirectoryAsync { base in
            let store = try ButtonStore(directory: base, clock: .system)
            defer { store.close() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for index in 0..<50 {
                            let seq = Int64(worker * 50 + index + 1)
                            try store.commit(events: [event(seq)], states: [], deliveries: [deliveryRow(seq, eventSeq: seq)])
                            _ = try store.deliveries(handler: nil, status: .pending, before: nil, limit: 5)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try store.events(after: 0, limit: 1_000_000, button: nil).count == 400)
            #expect(try store.pendingDeliveries().count == 400)
        }
    }
}
