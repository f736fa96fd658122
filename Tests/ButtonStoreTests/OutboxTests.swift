import ButtonStore
import Testing

/// The delivery outbox and attempt log as the workers use them.
@Suite struct OutboxTests {
    @Test func dueRowsArePendingDueAndInEventOrder() throws {
        try withStore { store, _ throws in
            try store.enqueue([
                outboxRow("d3", eventSeq: 3, nextAttemptAt: 100),
                outboxRow("d1", eventSeq: 1, nextAttemptAt: 100),
                outboxRow("d2", eventSeq: 2, nextAttemptAt: 200),
                outboxRow("d4", eventSeq: 4, nextAttemptAt: 50),
            ])
            try store.updateOutbox(id: "d4", status: "ok", attempts: 1, nextAttemptAt: 50)
            #expect(try store.dueOutbox(now: 100, limit: 10).map(\.id) == ["d1", "d3"])
            #expect(try store.dueOutbox(now: 200, limit: 10).map(\.id) == ["d1", "d2", "d3"])
            #expect(try store.dueOutbox(now: 200, limit: 1).map(\.id) == ["d1"])
            #expect(try store.outboxDepth() == 3)
        }
    }

    @Test func updateAndResetInFlight() throws {
        try withStore { store, _ throws in
            try store.enqueue([outboxRow("d1"), outboxRow("d2")])
            try store.updateOutbox(id: "d1", status: "in_flight", attempts: 1, nextAttemptAt: 1_000)
            let row = try #require(try store.outbox(id: "d1"))
            #expect(row.status == "in_flight")
            #expect(row.attempts == 1)
            #expect(row.nextAttemptAt == 1_000)
            #expect(row.body == Array("body-d1".utf8))
            #expect(try store.outboxDepth() == 2)
            #expect(try store.dueOutbox(now: 5_000, limit: 10).map(\.id) == ["d2"])
            #expect(try store.resetInFlight() == 1)
            #expect(try store.outbox(id: "d1")?.status == "pending")
            try store.updateOutbox(id: "d2", status: "failed", attempts: 7, nextAttemptAt: 0)
            try store.updateOutbox(id: "d1", status: "expired", attempts: 1, nextAttemptAt: 0)
            #expect(try store.outboxDepth() == 0)
            #expect(try store.outbox(id: "missing") == nil)
        }
    }

    @Test func deliveriesListNewestFirstWithFilters() throws {
        try withStore { store, _ throws in
            try store.enqueue([
                outboxRow("d1", handler: "h1", eventSeq: 1), outboxRow("d2", handler: "h2", eventSeq: 2),
                outboxRow("d3", handler: "h1", eventSeq: 3),
            ])
            try store.updateOutbox(id: "d3", status: "ok", attempts: 1, nextAttemptAt: 0)
            #expect(try store.deliveries(handler: nil, status: nil, limit: 10).map(\.id) == ["d3", "d2", "d1"])
            #expect(try store.deliveries(handler: "h1", status: nil, limit: 10).map(\.id) == ["d3", "d1"])
            #expect(try store.deliveries(handler: "h1", status: "pending", limit: 10).map(\.id) == ["d1"])
            #expect(try store.deliveries(handler: nil, status: nil, limit: 1).map(\.id) == ["d3"])
        }
    }

    @Test func attemptsRoundTripInOrder() throws {
        try withStore { store, _ throws in
            try store.recordAttempt(
                delivery: "d1", number: 2, startedAt: 2_000, durationMs: 15, outcome: "ok", statusCode: 204,
                exitCode: nil, output: "")
            try store.recordAttempt(
                delivery: "d1", number: 1, startedAt: 1_000, durationMs: 3_000, outcome: "timeout", statusCode: nil,
                exitCode: nil, output: "no answer")
            try store.recordAttempt(
                delivery: "d2", number: 1, startedAt: 1_500, durationMs: 40, outcome: "exit_code", statusCode: nil,
                exitCode: 3, output: "boom\n")
            #expect(
                try store.attempts(delivery: "d1") == [
                    StoredAttempt(
                        delivery: "d1", number: 1, startedAt: 1_000, durationMs: 3_000, outcome: "timeout",
                        output: "no answer"),
                    StoredAttempt(
                        delivery: "d1", number: 2, startedAt: 2_000, durationMs: 15, outcome: "ok", statusCode: 204,
                        output: ""),
                ])
            #expect(try store.attempts(delivery: "d2").first?.exitCode == 3)
            #expect(try store.attempts(delivery: "none").isEmpty)
        }
    }

    @Test func concurrentCallersAreSerialized() async throws {
        try await withTemporaryDirectoryAsync { base in
            let store = try ButtonStore(directory: base)
            defer { store.close() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for index in 0..<50 {
                            let seq = Int64(worker * 50 + index + 1)
                            try store.commit(
                                events: [event(seq)], states: [], outbox: [outboxRow("d\(seq)", eventSeq: seq)])
                            _ = try store.dueOutbox(now: 0, limit: 5)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try store.eventCount() == 400)
            #expect(try store.outboxDepth() == 400)
        }
    }
}
