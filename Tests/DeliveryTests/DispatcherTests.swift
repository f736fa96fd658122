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

    /// On a clock the test moves, so the schedule is checked to the millisecond and no test
    /// waits for it: each retry's time is the policy's (1 s, then 5 s, ± 20 %), nothing goes a
    /// millisecond before it, and it goes when the clock reaches it.
    @Test func retriesComeWhenThePolicySays() throws {
        let time = ManualClock()
        let harness = try DispatcherHarness(clock: time)
        // Fails twice, then succeeds.
        let sender = FakeSender(destination: "d", clock: time.clock) { row in
            row.attempts < 2 ? AttemptResult(outcome: .connect, output: "refused") : AttemptResult(outcome: .ok, statusCode: 200)
        }
        harness.dispatcher.setSender(sender, id: "h", policy: DeliveryPolicy(maxAttempts: 5))
        let id = try harness.add(1, to: "h")[0]
        for (failed, schedule) in [(1, 800...1200), (2, 4000...6000)] as [(Int, ClosedRange<Int64>)] {
            #expect(eventually { harness.decisions(id).count == failed })
            guard case .retry(let at)? = harness.decisions(id).last, let last = sender.sent.last else {
                Issue.record("expected a retry after attempt \(failed), got \(harness.decisions(id))")
                return
            }
            #expect(schedule.contains(at - last.atMs), "retry \(failed) due \(at - last.atMs) ms after the attempt")
            time.advance(to: at - 1)
            harness.dispatcher.wake()
            usleep(50_000)
            #expect(sender.sent.count == failed, "retry \(failed) went before it was due")
            time.advance(to: at)
            harness.dispatcher.wake()
            #expect(eventually { sender.sent.count == failed + 1 })
            #expect(sender.sent.last?.atMs == at)
        }
        #expect(eventually { harness.decisions(id).count == 3 && harness.dispatcher.depth == 0 })
        #expect(sender.sent.map(\.attempt) == [1, 2, 3])
        #expect(harness.decisions(id).last == .finish(.ok))
    }

    /// A 429's `Retry-After` is the wait, to the millisecond on a clock the test moves, with
    /// no jitter (the schedule's first wait would be 1 s ± 20 %).
    @Test func retryAfterOfA429IsTheWait() throws {
        let time = ManualClock()
        let harness = try DispatcherHarness(clock: time)
        let sender = FakeSender(destination: "d", clock: time.clock) { row in
            row.attempts == 0
                ? AttemptResult(outcome: .httpStatus, statusCode: 429, retryAfterSeconds: 3) : AttemptResult(outcome: .ok, statusCode: 200)
        }
        harness.dispatcher.setSender(sender, id: "h", policy: DeliveryPolicy(maxAttempts: 3))
        let id = try harness.add(1, to: "h")[0]
        #expect(eventually { harness.decisions(id).count == 1 })
        let first = time.now
        #expect(harness.decisions(id) == [.retry(at: first + 3000)])
        time.advance(2999)
        harness.dispatcher.wake()
        usleep(50_000)
        #expect(sender.sent.count == 1, "retried before the Retry-After wait was over")
        time.advance(1)
        harness.dispatcher.wake()
        #expect(eventually { sender.sent.count == 2 })
        #expect(sender.sent.map(\.atMs) == [first, first + 3000])
        #expect(eventually { harness.decisions(id) == [.retry(at: first + 3000), .finish(.ok)] })
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
