/// One logged attempt of a delivery, for the delivery log (`GET /deliveries/{did}`).
public struct StoredAttempt: Sendable, Equatable {
    public var delivery: Int64
    /// 1 for the first attempt.
    public var number: Int
    /// Milliseconds since the Unix epoch.
    public var startedAt: Int64
    public var durationMs: Int64
    /// `ok`, `http_status`, `timeout`, `connect`, `exit_code`, `signal`, `expired`, `refused` or `blocked`.
    public var outcome: String
    public var statusCode: Int?
    public var exitCode: Int?
    /// The first bytes of the response or the script's output.
    public var output: String

    public init(
        delivery: Int64, number: Int, startedAt: Int64, durationMs: Int64, outcome: String, statusCode: Int? = nil,
        exitCode: Int? = nil, output: String
    ) {
        self.delivery = delivery
        self.number = number
        self.startedAt = startedAt
        self.durationMs = durationMs
        self.outcome = outcome
        self.statusCode = statusCode
        self.exitCode = exitCode
        self.output = output
    }
}
