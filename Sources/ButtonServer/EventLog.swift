import ButtonEngine
import ButtonStore
import Delivery
import FoundationEssentials
import Glibc
import Dispatch
import MicroHTTP
import ThreadSupport

/// The ordered, durable record of every control event. `commit` numbers events (`seq` grows
/// by one) and writes them, with the button states they leave behind and their deliveries, in
/// a SQLite transaction; it returns, and pushes them to live streams in `seq` order, only
/// after that transaction committed. Concurrent commits are grouped: whichever caller finds no
/// write in progress writes everything queued in one transaction (group commit).
final class EventLog: @unchecked Sendable {  // all mutable state is guarded by `condition`
    private let condition = Condition()
    private let store: ButtonStore
    private let idPrefix: String
    private let retention: Int
    private var nextSeq: Int64
    private var sinceTrim = 0
    private var subscribers: [Subscriber] = []
    private let handlers: HandlerRegistry
    private let dispatcher: Dispatcher
    private let metrics: Metrics
    /// Undelivered deliveries allowed before input that would add more is refused with 503.
    let maxQueue: Int

    /// One caller's part of a group commit.
    private struct Pending {
        var ticket: Int
        var events: [ControlEvent]
        var stored: [StoredEvent]
        var states: [ButtonStateChange]
        var outbox: [OutboxRow]
    }

    private var queue: [Pending] = []
    private var writing = false
    private var nextTicket = 1
    private var doneThrough = 0
    private var failures: [Int: HTTPError] = [:]
    /// Deliveries queued but not yet committed, counted against `maxQueue` too.
    private var queuedDeliveries = 0

    struct Subscriber {
        var stream: EventStream
        var source: String?
    }

    init(
        store: ButtonStore, retention: Int, handlers: HandlerRegistry, dispatcher: Dispatcher, metrics: Metrics,
        maxQueue: Int
    ) throws(StoreError) {
        self.store = store
        self.retention = retention
        self.handlers = handlers
        self.dispatcher = dispatcher
        self.metrics = metrics
        self.maxQueue = maxQueue
        self.nextSeq = try store.lastSeq() + 1
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        self.idPrefix = "evt_" + String((0..<8).map { _ in alphabet.randomElement()! }) + "_"
    }

    private static func stored(_ event: ControlEvent) -> StoredEvent {
        switch event.source {
        case .button(let name):
            StoredEvent(seq: event.seq, id: event.id, type: event.type.rawValue, button: name, sheet: nil, t: event.t, json: event.json)
        case .sheet(let name):
            StoredEvent(seq: event.seq, id: event.id, type: event.type.rawValue, button: nil, sheet: name, t: event.t, json: event.json)
        }
    }

    /// Numbers, stores and publishes events. Nothing is published, and nothing returned,
    /// unless it was committed.
    func commit(
        _ gestures: [(GestureEvent, ControlEvent.Source)], states: [ButtonStateChange]
    ) throws(HTTPError) -> [ControlEvent] {
        condition.lock()
        defer { condition.unlock() }
        var events: [ControlEvent] = []
        events.reserveCapacity(gestures.count)
        for (offset, (gesture, source)) in gestures.enumerated() {
            events.append(ControlEvent(seq: nextSeq + Int64(offset), idPrefix: idPrefix, gesture: gesture, source: source))
        }
        let outbox = events.isEmpty ? [] : handlers.deliveries(for: events, now: Timestamp.now())
        if !outbox.isEmpty && dispatcher.depth + queuedDeliveries + outbox.count > maxQueue {
            throw HTTPError.unavailable(
                "the delivery queue is full (\(dispatcher.depth) deliveries waiting); try again shortly", retryAfter: 5)
        }
        if events.isEmpty && states.isEmpty { return [] }
        nextSeq += Int64(events.count)
        queuedDeliveries += outbox.count
        let ticket = nextTicket
        nextTicket += 1
        queue.append(Pending(ticket: ticket, events: events, stored: events.map(Self.stored), states: states, outbox: outbox))
        while doneThrough < ticket {
            if writing {
                condition.wait()
            } else {
                writeQueued()
            }
        }
        if let failure = failures.removeValue(forKey: ticket) { throw failure }
        return events
    }

    /// Writes everything queued in one transaction, then publishes it. Called with the lock
    /// held; releases it while SQLite works so more callers can queue behind.
    private func writeQueued() {
        writing = true
        let batch = queue
        queue = []
        condition.unlock()
        var events: [StoredEvent] = []
        var states: [ButtonStateChange] = []
        var outbox: [OutboxRow] = []
        for pending in batch {
            events += pending.stored
            states += pending.states
            outbox += pending.outbox
        }
        var failure: StoreError?
        do throws(StoreError) {
            try store.commit(events: events, states: states, outbox: outbox)
        } catch {
            failure = error
        }
        condition.lock()
        queuedDeliveries -= outbox.count
        if let failure {
            let error = HTTPError.unavailable("the event log could not be written: \(failure.description)", retryAfter: 1)
            for pending in batch { failures[pending.ticket] = error }
        } else {
            if !outbox.isEmpty {
                dispatcher.added(outbox)
                dispatcher.wake()
            }
            let all = batch.flatMap(\.events)
            publish(all)
            metrics.events(all.map(\.type.rawValue))
            metrics.commit(calls: batch.count)
            sinceTrim += all.count
        }
        doneThrough = batch.last?.ticket ?? doneThrough
        writing = false
        condition.broadcast()
        if sinceTrim >= 1000 {
            sinceTrim = 0
            _ = try? store.trimEvents(keep: retention)
        }
    }

    private static func message(_ json: [UInt8], seq: Int64) -> [UInt8] {
        var bytes = Array("id: \(seq)\ndata: ".utf8)
        bytes.append(contentsOf: json)
        bytes.append(contentsOf: [0x0A, 0x0A])
        return bytes
    }

    /// Called with the lock held, so streams receive events in `seq` order: one buffer per
    /// subscriber per batch, so a burst costs one stream wake-up, not one per event.
    private func publish(_ events: [ControlEvent]) {
        guard !subscribers.isEmpty, !events.isEmpty else { return }
        var everything: [UInt8] = []
        var messages: [(source: String, bytes: [UInt8])] = []
        for event in events {
            let bytes = Self.message(event.json, seq: event.seq)
            everything += bytes
            messages.append((event.source.name, bytes))
        }
        var gone = false
        for subscriber in subscribers {
            let bytes: [UInt8]
            if let source = subscriber.source {
                bytes = messages.filter { $0.source == source }.flatMap(\.bytes)
                if bytes.isEmpty { continue }
            } else {
                bytes = everything
            }
            if !subscriber.stream.send(bytes) { gone = true }
        }
        if gone { subscribers.removeAll { !$0.stream.isOpen } }
    }

    /// Attaches a live stream; first replays the history after `after` (if given), under the
    /// same lock as commits so nothing is missed or sent twice.
    func subscribe(_ stream: EventStream, after: Int64?, source: String?) throws(HTTPError) {
        condition.lock()
        defer { condition.unlock() }
        // A batch being written would reach the store and then be published: wait it out.
        while writing { condition.wait() }
        if var cursor = after {
            while true {
                let page: [StoredEvent]
                do throws(StoreError) {
                    page = try store.events(after: cursor, limit: 1000, button: source)
                } catch {
                    throw HTTPError.unavailable("the event log could not be read: \(error.description)", retryAfter: 1)
                }
                for event in page { stream.send(Self.message(event.json, seq: event.seq)) }
                guard let last = page.last, page.count == 1000 else { break }
                cursor = last.seq
            }
        }
        subscribers.removeAll { !$0.stream.isOpen }
        subscribers.append(Subscriber(stream: stream, source: source))
    }

    func history(after: Int64?, limit: Int, source: String?) throws(HTTPError) -> [StoredEvent] {
        do throws(StoreError) {
            if let after { return try store.events(after: after, limit: limit, button: source) }
            // No cursor: the newest `limit` events, oldest first.
            return try store.latestEvents(limit: limit, button: source)
        } catch {
            throw HTTPError.unavailable("the event log could not be read: \(error.description)", retryAfter: 1)
        }
    }
}
