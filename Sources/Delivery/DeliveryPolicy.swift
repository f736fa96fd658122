import Outbox

/// What happens to a delivery after an attempt (SPEC §5), decided from values alone: no clock,
/// no socket, no store. The dispatcher carries out what it answers.
public struct DeliveryPolicy: Sendable, Equatable {
    /// Attempts at most, the first included.
    public var maxAttempts: Int
    /// A delivery older than this (since it was made) is marked `expired` rather than sent late.
    public var expireAfterMs: Int64?
    /// Multiplies every wait (1 in production; tests shrink it).
    public var retryScale: Double
    /// Every retry after this wait instead of the schedule (a broker that is down: try again
    /// every second until it is back).
    public var fixedRetryMs: Int64?

    public init(maxAttempts: Int, expireAfterMs: Int64? = nil, retryScale: Double = 1, fixedRetryMs: Int64? = nil) {
        self.maxAttempts = maxAttempts
        self.expireAfterMs = expireAfterMs
        self.retryScale = retryScale
        self.fixedRetryMs = fixedRetryMs
    }

    public enum Decision: Sendable, Equatable {
        /// Nothing more will be tried; the delivery ends with this status.
        case finish(DeliveryStatus)
        /// The receiver answered 410 Gone: the delivery failed and its handler is disabled.
        case finishAndDisable
        /// Pending again, due at this time (milliseconds since the epoch).
        case retry(at: Int64)

        /// The status the delivery is left in.
        public var status: DeliveryStatus {
            switch self {
            case .finish(let status): status
            case .finishAndDisable: .failed
            case .retry: .pending
            }
        }
    }

    /// Whether a delivery made at `createdAt` is too old to send at `now`.
    public func isExpired(createdAt: Int64, now: Int64) -> Bool {
        guard let expireAfterMs else { return false }
        return now > createdAt + expireAfterMs
    }

    /// After attempt `number` (1-based) of a delivery made at `createdAt` ended at `now` with
    /// `result`. `jitter` (−0.2…0.2) spreads the scheduled retries; it is asked for only when
    /// the retry is scheduled (an attempt that succeeds draws no random number).
    public func decide(
        _ result: AttemptResult, attempt number: Int, createdAt: Int64, now: Int64, jitter: @autoclosure () -> Double
    ) -> Decision {
        switch result.outcome {
        case .ok: return .finish(.ok)
        case .expired: return .finish(.expired)
        case .blocked: return .finish(.blocked)
        default: break
        }
        if result.statusCode == 410 { return .finishAndDisable }
        guard number < maxAttempts else { return .finish(.failed) }
        let waitMs: Int64
        if let fixedRetryMs {
            waitMs = fixedRetryMs
        } else if let seconds = result.retryAfterSeconds, result.statusCode == 429 || result.statusCode == 503 {
            waitMs = Int64(min(max(seconds, 0), RetryAfter.maximumSeconds)) * 1000
        } else {
            waitMs = RetrySchedule.delay(afterAttempt: number, jitter: jitter())
        }
        let at = now + Int64((Double(waitMs) * retryScale).rounded())
        if isExpired(createdAt: createdAt, now: at) { return .finish(.expired) }
        return .retry(at: at)
    }
}
