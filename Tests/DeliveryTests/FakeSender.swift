import Outbox
import ButtonStore
import Delivery
import Foundation
import Testing
import TestSupport
import ThreadSupport

/// A sender that sends nothing: it notes every attempt (which row, when, how many it has in
/// flight), answers what `answer` says, at once or after `delayMs` from a thread of its own,
/// or holds every attempt until `release` (a receiver that hangs).
final class FakeSender: DeliverySender, @unchecked Sendable {  // every `var` is guarded by `condition`
    struct Sent {
        var id: Int64
        var attempt: Int
        var atMs: Int64
    }

    let kind = "fake"
    let destination: String
    let batchLimit: Int
    let delayMs: Int
    /// What each attempt's time is read from.
    let clock: Clock
    private let condition = Condition()
    private var holding: Bool
    private var held: [([DeliveryRow], @Sendable ([AttemptResult]) -> Void)] = []
    private var log: [Sent] = []
    private var current = 0
    private var most = 0
    private let answer: @Sendable (DeliveryRow) -> AttemptResult

    init(
        destination: String, holding: Bool = false, delayMs: Int = 0, batchLimit: Int = 1, clock: Clock = .system,
        answer: @escaping @Sendable (DeliveryRow) -> AttemptResult = { _ in AttemptResult(outcome: .ok, statusCode: 200) }
    ) {
        self.destination = destination
        self.clock = clock
        self.holding = holding
        self.delayMs = delayMs
        self.batchLimit = batchLimit
        self.answer = answer
    }

    func send(_ rows: [DeliveryRow], done: @escaping @Sendable ([AttemptResult]) -> Void) {
        let now = clock.now()
        let hold = condition.locked {
            log += rows.map { Sent(id: $0.id, attempt: $0.attempts + 1, atMs: now) }
            current += 1
            most = max(most, current)
            if holding { held.append((rows, done)) }
            return holding
        }
        guard !hold else { return }
        if delayMs == 0 { return finish(rows, done) }
        let delay = delayMs
        startThread(name: "fake-sender") { [self] in
            usleep(UInt32(delay * 1000))
            finish(rows, done)
        }
    }

    private func finish(_ rows: [DeliveryRow], _ done: @Sendable ([AttemptResult]) -> Void) {
        condition.locked { current -= 1 }
        done(rows.map(answer))
    }

    /// Answers every held attempt (the oldest `count`, if given); with `stopHolding`, later
    /// ones are answered at once.
    func release(_ count: Int = .max, stopHolding: Bool = false) {
        let released = condition.locked {
            if stopHolding { holding = false }
            let released = Array(held.prefix(count))
            held.removeFirst(released.count)
            return released
        }
        for (rows, done) in released { finish(rows, done) }
    }

    var sent: [Sent] { condition.locked { log } }
    var inFlight: Int { condition.locked { current } }
    /// The most attempts it had in flight at once.
    var mostInFlight: Int { condition.locked { most } }
}

/// A dispatcher on a store of its own, with fake senders, and what its attempts ended as; on
/// the machine's clock, or on one the test moves.
final class DispatcherHarness: @unchecked Sendable {  // `decisions` is guarded by `lock`
    let directory: String
    let clock: Clock
    let store: ButtonStore
    let dispatcher: Dispatcher
    private let lock = Locked<[Int64: [DeliveryPolicy.Decision]]>([:])
    private var nextID: Int64 = 1

    init(concurrency: Int = 16, perDestination: Int? = nil, clock: ManualClock? = nil) throws {
        self.clock = clock?.clock ?? .system
        directory = NSTemporaryDirectory() + "dispatcher-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = try ButtonStore(directory: directory, clock: .system)
        let decisions = lock
        dispatcher = Dispatcher(
            store: store, clock: self.clock, concurrency: concurrency, perDestination: perDestination, userAgent: "test")
        dispatcher.start(rules: DestinationRules()) { attempt in
            decisions.withLock { $0[attempt.delivery.id, default: []].append(attempt.decision) }
        }
    }

    deinit {
        dispatcher.stop(waitingUpTo: 1)
        store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `count` deliveries to `handler`, stored and handed to the dispatcher; their ids.
    @discardableResult
    func add(_ count: Int, to handler: String) throws -> [Int64] {
        let now = clock.now()
        let rows = (0..<count).map { _ in
            defer { nextID += 1 }
            return DeliveryRow(
                id: nextID, handler: handler, nextAttemptAt: now, createdAt: now,
                event: DeliveryEvent(seq: nextID, id: "evt_\(nextID)", type: .tap, source: .button("b"), t: now, json: Array("{}".utf8)))
        }
        try store.enqueue(rows)
        dispatcher.added(rows)
        return rows.map(\.id)
    }

    func decisions(_ id: Int64) -> [DeliveryPolicy.Decision] { lock.withLock { $0[id] ?? [] } }
}
