import ButtonEngine
import ButtonStore
import Delivery
import Foundation
import MicroHTTP

/// The ordered, durable record of every control event. `commit` numbers events (`seq` grows
/// by one), writes them with the button states they leave behind in one SQLite transaction,
/// and only then returns and pushes them to live streams, in `seq` order.
final class EventLog: @unchecked Sendable {  // all mutable state is guarded by `lock`
    private let lock = NSLock()
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

    /// Numbers, stores and publishes events. Nothing is published unless it was committed.
    func commit(
        _ gestures: [(GestureEvent, ControlEvent.Source)], states: [ButtonStateChange]
    ) throws(HTTPError) -> [ControlEvent] {
        lock.lock()
        defer { lock.unlock() }
        var events: [ControlEvent] = []
        events.reserveCapacity(gestures.count)
        for (offset, (gesture, source)) in gestures.enumerated() {
            events.append(ControlEvent(seq: nextSeq + Int64(offset), idPrefix: idPrefix, gesture: gesture, source: source))
        }
        let stored = events.map { event in
            switch event.source {
            case .button(let name):
                StoredEvent(seq: event.seq, id: event.id, type: event.type.rawValue, button: name, sheet: nil, t: event.t, json: event.json)
            case .sheet(let name):
                StoredEvent(seq: event.seq, id: event.id, type: event.type.rawValue, button: nil, sheet: name, t: event.t, json: event.json)
            }
        }
        let outbox = events.isEmpty ? [] : handlers.deliveries(for: events, now: Timestamp.now())
        if !outbox.isEmpty && dispatcher.depth + outbox.count > maxQueue {
            throw HTTPError.unavailable(
                "the delivery queue is full (\(dispatcher.depth) deliveries waiting); try again shortly", retryAfter: 5)
        }
        do throws(StoreError) {
            try store.commit(events: stored, states: states, outbox: outbox)
        } catch {
            throw HTTPError.unavailable("the event log could not be written: \(error.description)", retryAfter: 1)
        }
        nextSeq += Int64(events.count)
        if !outbox.isEmpty {
            dispatcher.added(outbox.count)
            dispatcher.wake()
        }
        publish(events)
        metrics.events(events.map(\.type.rawValue))
        sinceTrim += events.count
        if sinceTrim >= 1000 {
            sinceTrim = 0
            _ = try? store.trimEvents(keep: retention)
        }
        return events
    }

    private static func message(_ json: [UInt8], seq: Int64) -> [UInt8] {
        var bytes = Array("id: \(seq)\ndata: ".utf8)
        bytes.append(contentsOf: json)
        bytes.append(contentsOf: [0x0A, 0x0A])
        return bytes
    }

    /// Called with `lock` held, so streams receive events in `seq` order.
    private func publish(_ events: [ControlEvent]) {
        guard !subscribers.isEmpty, !events.isEmpty else { return }
        var gone = false
        for event in events {
            let bytes = Self.message(event.json, seq: event.seq)
            let name = event.source.name
            for subscriber in subscribers where subscriber.source == nil || subscriber.source == name {
                if !subscriber.stream.send(bytes) { gone = true }
            }
        }
        if gone { subscribers.removeAll { !$0.stream.isOpen } }
    }

    /// Attaches a live stream; first replays the history after `after` (if given), under the
    /// same lock as commits so nothing is missed or sent twice.
    func subscribe(_ stream: EventStream, after: Int64?, source: String?) throws(HTTPError) {
        lock.lock()
        defer { lock.unlock() }
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

    var lastSeq: Int64 {
        lock.lock()
        defer { lock.unlock() }
        return nextSeq - 1
    }
}
