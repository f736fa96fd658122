import ButtonStore
import Delivery
import Testing
import TestSupport

/// Every rule of SPEC §5 on what follows an attempt, without a socket in sight.
@Suite struct DeliveryPolicyTests {
    typealias Decision = DeliveryPolicy.Decision
    static let created: Int64 = 1_000_000
    static let now: Int64 = 1_060_000

    static func result(_ outcome: AttemptResult.Outcome, status: Int? = nil, retryAfter: Int? = nil) -> AttemptResult {
        AttemptResult(outcome: outcome, statusCode: status, retryAfterSeconds: retryAfter)
    }

    /// (what happened, attempt number, maxAttempts, expireAfterMs, what follows); jitter 0.
    @Test(arguments: [
        // 2xx is success, whatever the attempt.
        (result(.ok, status: 204), 1, 7, nil, Decision.finish(.ok)),
        (result(.ok, status: 200), 7, 7, nil, .finish(.ok)),
        // Failures retry after 1 s, 5 s, 30 s, 2 min, 10 min, 1 h …
        (result(.httpStatus, status: 500), 1, 7, nil, .retry(at: now + 1_000)),
        (result(.connect), 2, 7, nil, .retry(at: now + 5_000)),
        (result(.timeout), 3, 7, nil, .retry(at: now + 30_000)),
        (result(.httpStatus, status: 302), 4, 7, nil, .retry(at: now + 120_000)),  // a redirect is a failure
        (result(.exitCode), 5, 7, nil, .retry(at: now + 600_000)),
        (result(.signal), 6, 7, nil, .retry(at: now + 3_600_000)),
        (result(.httpStatus, status: 500), 9, 20, nil, .retry(at: now + 3_600_000)),  // … and every hour after
        // … until maxAttempts.
        (result(.httpStatus, status: 500), 7, 7, nil, .finish(.failed)),
        (result(.exitCode), 1, 1, nil, .finish(.failed)),  // scripts: one attempt by default
        (result(.refused), 1, 1, nil, .finish(.failed)),
        // 410 Gone disables the handler, on any attempt.
        (result(.httpStatus, status: 410), 1, 7, nil, .finishAndDisable),
        (result(.httpStatus, status: 410), 7, 7, nil, .finishAndDisable),
        // 429 and 503 honour Retry-After (capped at an hour); without one, the schedule.
        (result(.httpStatus, status: 429, retryAfter: 42), 1, 7, nil, .retry(at: now + 42_000)),
        (result(.httpStatus, status: 503, retryAfter: 0), 1, 7, nil, .retry(at: now)),
        (result(.httpStatus, status: 503, retryAfter: 86_400), 1, 7, nil, .retry(at: now + 3_600_000)),
        (result(.httpStatus, status: 503), 2, 7, nil, .retry(at: now + 5_000)),
        (result(.httpStatus, status: 500, retryAfter: 42), 1, 7, nil, .retry(at: now + 1_000)),  // only 429/503
        (result(.httpStatus, status: 429, retryAfter: 42), 7, 7, nil, .finish(.failed)),
        // Not sent: expired and blocked are final, never retried.
        (result(.expired), 1, 7, nil, .finish(.expired)),
        (result(.blocked), 1, 7, nil, .finish(.blocked)),
        // A retry that would land past expireAfterMs expires now instead of firing late.
        (result(.httpStatus, status: 500), 1, 7, Int64(61_000), .retry(at: now + 1_000)),
        (result(.httpStatus, status: 500), 2, 7, Int64(61_000), .finish(.expired)),
        (result(.httpStatus, status: 429, retryAfter: 3_600), 1, 7, Int64(600_000), .finish(.expired)),
    ] as [(AttemptResult, Int, Int, Int64?, Decision)])
    func decides(_ result: AttemptResult, _ number: Int, _ maxAttempts: Int, _ expire: Int64?, _ expected: Decision) {
        let policy = DeliveryPolicy(maxAttempts: maxAttempts, expireAfterMs: expire)
        #expect(policy.decide(result, attempt: number, createdAt: Self.created, now: Self.now, jitter: 0) == expected)
    }

    @Test func jitterSpreadsScheduledRetriesByAFifth() {
        let policy = DeliveryPolicy(maxAttempts: 7)
        let failed = Self.result(.connect)
        #expect(policy.decide(failed, attempt: 3, createdAt: Self.created, now: Self.now, jitter: -0.2) == .retry(at: Self.now + 24_000))
        #expect(policy.decide(failed, attempt: 3, createdAt: Self.created, now: Self.now, jitter: 0.2) == .retry(at: Self.now + 36_000))
    }

    @Test func retryScaleShrinksEveryWait() {
        let policy = DeliveryPolicy(maxAttempts: 7, retryScale: 0.01)
        #expect(policy.decide(Self.result(.timeout), attempt: 2, createdAt: Self.created, now: Self.now, jitter: 0) == .retry(at: Self.now + 50))
        let limited = Self.result(.httpStatus, status: 429, retryAfter: 10)
        #expect(policy.decide(limited, attempt: 1, createdAt: Self.created, now: Self.now, jitter: 0) == .retry(at: Self.now + 100))
    }

    @Test func aFixedWaitReplacesTheSchedule() {
        let policy = DeliveryPolicy(maxAttempts: .max, fixedRetryMs: 1_000)
        for number in [1, 6, 1_000] {
            #expect(policy.decide(Self.result(.connect), attempt: number, createdAt: Self.created, now: Self.now, jitter: 0.2) == .retry(at: Self.now + 1_000))
        }
        #expect(policy.decide(Self.result(.ok), attempt: 3, createdAt: Self.created, now: Self.now, jitter: 0) == .finish(.ok))
    }

    @Test(arguments: [(nil, 10_000_000, false), (Int64(1_000), 1_001_000, false), (Int64(1_000), 1_001_001, true)] as [(Int64?, Int64, Bool)])
    func expiryBeforeAnAttempt(_ expire: Int64?, _ now: Int64, _ expired: Bool) {
        #expect(DeliveryPolicy(maxAttempts: 7, expireAfterMs: expire).isExpired(createdAt: Self.created, now: now) == expired)
    }

    @Test func decisionsLeaveTheStatusTheLogShows() {
        #expect(Decision.finish(.ok).status == .ok)
        #expect(Decision.finishAndDisable.status == .failed)
        #expect(Decision.retry(at: 5).status == .pending)
    }

    /// Random outcomes on random deliveries: a delivery is attempted at most maxAttempts
    /// times, every retry lies ahead (by at most an hour and a fifth), nothing expired is
    /// scheduled past its expiry, and only 2xx ends as `ok`.
    /// Seeded: a failure names its seed and history, and `arguments: [seed]` replays it.
    @Test(arguments: 0..<5 as Range<UInt64>)
    func invariantsHoldForRandomHistories(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let outcomes: [AttemptResult.Outcome] = [.ok, .httpStatus, .timeout, .connect, .exitCode, .signal, .refused, .blocked, .expired]
        for history in 0..<1_000 {
            let maxAttempts = Int.random(in: 1...20, using: &random)
            let expire: Int64? = Bool.random(using: &random) ? Int64.random(in: 1_000...604_800_000, using: &random) : nil
            let policy = DeliveryPolicy(maxAttempts: maxAttempts, expireAfterMs: expire)
            var now = Self.created
            var attempts = 0
            while true {
                attempts += 1
                let outcome = outcomes.randomElement(using: &random)!
                let status = outcome == .httpStatus ? [400, 404, 410, 429, 500, 503].randomElement(using: &random)! : nil
                let result = AttemptResult(
                    outcome: outcome, statusCode: status,
                    retryAfterSeconds: Bool.random(using: &random) ? Int.random(in: 0...100_000, using: &random) : nil)
                let decision = policy.decide(
                    result, attempt: attempts, createdAt: Self.created, now: now, jitter: Double.random(in: -0.2...0.2, using: &random))
                let context: Comment = "seed \(seed), history \(history), attempt \(attempts): \(outcome) \(status.map(String.init) ?? "-") -> \(decision)"
                #expect(attempts <= maxAttempts, context)
                if decision == .finish(.ok) { #expect(outcome == .ok, context) }
                if outcome == .ok { #expect(decision == .finish(.ok), context) }
                if status == 410 { #expect(decision == .finishAndDisable, context) }
                guard case .retry(let at) = decision else { break }
                #expect(at >= now && at <= now + 4_320_000, context)
                if let expire { #expect(at <= Self.created + expire, context) }
                now = at
            }
        }
    }
}
