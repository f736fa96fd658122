/// When to try a failed delivery again: 1 s, 5 s, 30 s, 2 min, 10 min, 1 h, each ± 20 %.
public enum RetrySchedule {
    public static let delaysMs: [Int64] = [1_000, 5_000, 30_000, 120_000, 600_000, 3_600_000]

    /// The wait after failed attempt number `attempt` (1-based).
    public static func delay(afterAttempt attempt: Int, jitter: Double = Double.random(in: -0.2...0.2)) -> Int64 {
        let base = delaysMs[min(max(attempt, 1), delaysMs.count) - 1]
        return base + Int64(Double(base) * jitter)
    }
}
