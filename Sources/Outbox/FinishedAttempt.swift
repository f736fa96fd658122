/// One finished attempt and the state it leaves its delivery in.
public struct FinishedAttempt: Sendable {
    public var attempt: StoredAttempt
    public var status: DeliveryStatus
    public var nextAttemptAt: Int64

    public init(_ attempt: StoredAttempt, status: DeliveryStatus, nextAttemptAt: Int64) {
        self.attempt = attempt
        self.status = status
        self.nextAttemptAt = nextAttemptAt
    }
}

/// How many finished deliveries to keep, and how far past that to let the log grow before
/// a trim (so trims come in steps, not one row per attempt).
public struct Retention: Sendable {
    public var keep: Int
    public var slack: Int
    /// Finished deliveries in the log before this write.
    public var finishedBefore: Int

    public init(keep: Int, slack: Int, finishedBefore: Int) {
        self.keep = keep
        self.slack = slack
        self.finishedBefore = finishedBefore
    }
}
