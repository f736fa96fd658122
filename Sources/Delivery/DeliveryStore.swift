import Outbox

/// What the dispatcher and its log need of the durable delivery log: the store in the server
/// (`ButtonStore` conforms as it is), so Delivery never sees SQLite or the store's types.
public protocol DeliveryStore: Sendable {
    /// Every delivery not finished, oldest first: what a restart takes over.
    func pendingDeliveries() throws -> [DeliveryRow]
    func delivery(id: Int64) throws -> DeliveryRow?
    /// Makes a delivery pending and due at `at`; false if it no longer exists.
    func reschedule(delivery id: Int64, at: Int64) throws -> Bool
    func finishedDeliveryCount() throws -> Int
    /// Records attempts and their deliveries' new states in one transaction, then trims past
    /// the retention. Returns how many deliveries this finished and how many were trimmed.
    func record(_ finished: [FinishedAttempt], retention: Retention?) throws -> (finished: Int, trimmed: Int)
}
