import ButtonStore

/// Sends deliveries of a target the server runs itself (MQTT publishing) rather than one a
/// user registered: a run of them at once, oldest first.
public protocol DeliverySender: Sendable {
    /// The `kind` label of its attempts (`mqtt`).
    var kind: String { get }
    /// At most this many deliveries in one `send`.
    var batchLimit: Int { get }
    /// Whether sending can succeed now (a broker connected). While it cannot, its deliveries
    /// wait without attempts (a broker away for an hour would otherwise make an attempt row
    /// per pending delivery per retry); the server calls `Dispatcher.retryNow` when it can.
    var isReady: Bool { get }
    /// Sends `rows` in order and answers one result for each, in the same order.
    func send(_ rows: [DeliveryRow]) -> [AttemptResult]
}
