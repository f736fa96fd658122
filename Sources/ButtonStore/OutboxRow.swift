/// One durable delivery of one event to one handler: written with the event, sent by a worker.
///
/// `body` is the exact bytes sent on every attempt (the webhook signature covers them).
public struct OutboxRow: Sendable, Equatable {
    public var id: String
    public var handler: String
    public var eventSeq: Int64
    public var body: [UInt8]
    /// `pending`, `in_flight`, `ok`, `failed` or `expired`.
    public var status: String
    public var attempts: Int
    /// Milliseconds since the Unix epoch.
    public var nextAttemptAt: Int64
    /// Milliseconds since the Unix epoch.
    public var createdAt: Int64

    public init(
        id: String, handler: String, eventSeq: Int64, body: [UInt8], status: String = "pending", attempts: Int = 0,
        nextAttemptAt: Int64, createdAt: Int64
    ) {
        self.id = id
        self.handler = handler
        self.eventSeq = eventSeq
        self.body = body
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
    }
}
