import Outbox

/// Carries out attempts for one target: a handler (webhook, script, OSC) or a target of the
/// server's own (MQTT publishing). The dispatcher decides what goes when and what follows;
/// a sender only sends, and knows nothing of order, limits or retries.
public protocol DeliverySender: Sendable {
    /// The `kind` label of its attempts (`webhook`, `script`, `osc`, `mqtt`).
    var kind: String { get }
    /// What fails as one, for `DestinationSlots`: a webhook's scheme, host and port, a
    /// script's file.
    var destination: String { get }
    /// At most this many deliveries in one `send`.
    var batchLimit: Int { get }
    /// Whether sending can succeed now (a broker connected). While it cannot, its deliveries
    /// wait without attempts (a broker away for an hour would otherwise make an attempt row
    /// per pending delivery per retry); the server calls `Dispatcher.retryNow` when it can.
    /// Asked with the dispatcher's lock held: it must not wait.
    var isReady: Bool { get }
    /// Starts one attempt of each of `rows` (in order, at most `batchLimit`) and returns at
    /// once; `done` is called exactly once, from any thread, with one result per row in the
    /// same order.
    func send(_ rows: [DeliveryRow], done: @escaping @Sendable ([AttemptResult]) -> Void)
}

extension DeliverySender {
    public var batchLimit: Int { 1 }
    public var isReady: Bool { true }
}

/// A sender whose attempt holds its thread (a script to wait for, a broker's
/// acknowledgement, a name to resolve): each `send` runs on a thread of its `threads`.
public protocol BlockingDeliverySender: DeliverySender {
    /// The pool its sends run on, given by whoever made the sender.
    var threads: DeliveryThreads { get }
    /// Sends `rows` in order and answers one result for each, in the same order.
    func sendWaiting(_ rows: [DeliveryRow]) -> [AttemptResult]
}

extension BlockingDeliverySender {
    public func send(_ rows: [DeliveryRow], done: @escaping @Sendable ([AttemptResult]) -> Void) {
        threads.run { done(sendWaiting(rows)) }
    }
}
