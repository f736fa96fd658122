import ButtonStore
import Delivery
import Foundation
import Testing
import TestSupport

/// The dispatcher with fake senders: what it decides (order, limits, retries, disabling)
/// without a socket or a process.
@Suite("Dispatcher with a fake sender")
struct DispatcherTests {
    static let always = DeliveryPolicy(maxAttempts: 1)

    @Test func eachHandlerDeliversInOrderOneAtATime() throws {
        let harness = try DispatcherHarness(concurrency: 8)
        var senders: [String: FakeSender] = [:]
        var ids: [String: [Int64]] = [:]
        for handler in ["a", "b", "c"] {
            let sender = FakeSender(destination: "dest-" + handler, delayMs: 1)
            senders[handler] = sender
            harness.dispatcher.setSender(sender, id: handler, policy: Self.always)
        }
        // Interleaved, as events of several buttons come.
        for _ in 0..<20 {
            for handler in ["a", "b", "c"] { ids[handler, default: []] += try harness.add(1, to: handler) }
        }
        #expect(eventually { senders.values.allSatisfy { $0.sent.count == 20 } })
        #expect(eventually { harness.dispatcher.depth == 0 })
        for (handler, sender) in senders {
            #expect(sender.sent.map(\.id) == ids[handler], "handler \(handler)")
            #expect(sender.mostInFlight == 1, "handler \(handler)")
        }
    }

    @Test func noMoreThanTheConcurrencyAreInFlight() throws {
        let harness = try DispatcherHarness(concurrency: 4)
        let senders = (0..<10).map { FakeSender(destination: "dest-\($0)", holding: true) }
        for (index, sender) in senders.enumerated() {
            harness.dispatcher.setSender(sender, id: "h\(index)", policy: Self.always)
            try harness.add(2, to: "h\(index)")
        }
        #expect(eventually { senders.map(\.inFlight).reduce(0, +) == 4 })
        usleep(100_000)
        #expect(senders.map(\.inFlight).reduce(0, +) == 4)
        // One ends: exactly one more starts.
        let busy = try #require(senders.first { $0.inFlight > 0 })
        busy.release(1)
        #expect(eventually { senders.map(\.sent.count).reduce(0, +) == 5 })
        usleep(100_000)
        #expect(senders.map(\.inFlight).reduce(0, +) == 4)
        for sender in senders { sender.release(stopHolding: true) }
        #expect(eventually { harness.dispatcher.depth == 0 })
        #expect(senders.map(\.sent.count).reduce(0, +) == 20)
    }

    @Test func oneDestinationGetsNoMoreThanItsSlots() throws {
        let harness = try DispatcherHarness(concurrency: 8, perDestination: 3)
        // Six handlers on one receiver, one on another.
        let shared = (0..<6).map { _ in FakeSender(destination: "http://hangs:80", holding: true) }
        let other = FakeSender(destination: "http://fine:80")
        for (index, sender) in shared.enumerated() {
            harness.dispatcher.setSender(sender, id: "s\(index)", policy: Self.always)
            try harness.add(1, to: "s\(index)")
        }
        harness.dispatcher.setSender(other, id: "other", policy: Self.always)
        #expect(eventually { shared.map(\.inFlight).reduce(0, +) == 3 })
        try harness.add(5, to: "other")
        #expect(eventually { other.sent.count == 5 })
        #expect(shared.map(\.inFlight).reduce(0, +) == 3)
        #expect(shared.map(\.sent.count).reduce(0, +) == 3)
        for sender in shared { sender.release(stopHolding: true) }
        #expect(eventually { harness.dispatcher.depth == 0 })
        #expect(shared.allSatisfy { $0.sent.count == 1 })
    }

    @Test func retriesComeWhenThePolicySays() throws {
        let harness = try DispatcherHarness()
        // Fails twice, then succeeds; the schedule (1 s, 5 s) is shrunk to a tenth.
        let sender = FakeSender(destination: "d") { row in
            row.attempts < 2 ? AttemptResult(outcome: .connect, output: "refused") : AttemptResult(outcome: .ok, statusCode: 200)
        }
        harness.dispatcher.setSender(sender, id: "h", policy: DeliveryPolicy(maxAttempts: 5, retryScale: 0.1))
        let id = try harness.add(1, to: "h")[0]
        #expect(eventually { sender.sent.count == 3 && harness.dispatcher.depth == 0 })
        let times = sender.sent.map(\.atMs)
        #expect(sender.sent.map(\.attempt) == [1, 2, 3])
        // ± 20 % jitter, and a little for the thread to wake.
        #expect((80...180).contains(times[1] - times[0]), "first retry after \(times[1] - times[0]) ms")
        #expect((400...700).contains(times[2] - times[1]), "second retry after \(times[2] - times[1]) ms")
        let decisions = harness.decisions(id)
        #expect(decisions.count == 3)
        #expect(decisions.last == .finish(.ok))
        // Each retry went no earlier than the time it was given.
        for (decision, next) in zip(decisions, times.dropFirst()) {
            guard case .retry(let at) = decision else {
                Issue.record("expected a retry, got \(decision)")
                continue
            }
            #expect(next >= at)
        }
    }

    @Test func retryAfterOfA429IsTheWait() throws {
        let harness = try DispatcherHarness()
        let sender = FakeSender(destination: "d") { row in
            row.attempts == 0
                ? AttemptResult(outcome: .httpStatus, statusCode: 429, retryAfterSeconds: 3) : AttemptResult(outcome: .ok, statusCode: 200)
        }
        harness.dispatcher.setSender(sender, id: "h", policy: DeliveryPolicy(maxAttempts: 3, retryScale: 0.1))
        try harness.add(1, to: "h")
        #expect(eventually { sender.sent.count == 2 })
        let times = sender.sent.map(\.atMs)
        // 3 s × 0.1, no jitter: not before 300 ms (the schedule's first wait would be 100 ms ±
        // 20), and well short of the unscaled 3 s; a busy host may be late, never early.
        #expect((300..<1500).contains(times[1] - times[0]), "retried after \(times[1] - times[0]) ms")
    }

    @Test func a410DisablesTheHandlerAndItsOtherDeliveriesWait() throws {
        let harness = try DispatcherHarness()
        let gone = FakeSender(destination: "d") { _ in AttemptResult(outcome: .httpStatus, statusCode: 410) }
        let fine = FakeSender(destination: "e")
        harness.dispatcher.setSender(gone, id: "gone", policy: DeliveryPolicy(maxAttempts: 5, retryScale: 0.01))
        harness.dispatcher.setSender(fine, id: "fine", policy: Self.always)
        let ids = try harness.add(3, to: "gone")
        try harness.add(3, to: "fine")
        #expect(eventually { fine.sent.count == 3 && harness.decisions(ids[0]).count == 1 })
        usleep(200_000)
        #expect(gone.sent.map(\.id) == [ids[0]])
        #expect(harness.decisions(ids[0]) == [.finishAndDisable])
        #expect(harness.dispatcher.pending("gone") == 2)
        #expect(try harness.store.delivery(id: ids[0])?.status == .failed)
    }

    @Test func aSlowSenderDoesNotHoldBackAnotherHandler() throws {
        let harness = try DispatcherHarness(concurrency: 2)
        let slow = FakeSender(destination: "slow", holding: true)
        let fast = FakeSender(destination: "fast")
        harness.dispatcher.setSender(slow, id: "slow", policy: Self.always)
        harness.dispatcher.setSender(fast, id: "fast", policy: Self.always)
        try harness.add(3, to: "slow")
        #expect(eventually { slow.inFlight == 1 })
        try harness.add(50, to: "fast")
        #expect(eventually { fast.sent.count == 50 })
        #expect(harness.dispatcher.pending("fast") == 0 || eventually { harness.dispatcher.pending("fast") == 0 })
        #expect(slow.sent.count == 1)
        slow.release(stopHolding: true)
        #expect(eventually { slow.sent.count == 3 && harness.dispatcher.depth == 0 })
    }

    @Test func aBatchingSenderGetsRunsInOrder() throws {
        let harness = try DispatcherHarness()
        let sender = FakeSender(destination: "broker", delayMs: 5, batchLimit: 4)
        harness.dispatcher.setSender(sender, id: "own", policy: DeliveryPolicy(maxAttempts: 3))
        let ids = try harness.add(10, to: "own")
        #expect(eventually { sender.sent.count == 10 && harness.dispatcher.depth == 0 })
        #expect(sender.sent.map(\.id) == ids)
        #expect(sender.mostInFlight == 1)
    }
}
