/// How one attempt ended, as the delivery log records it.
public struct AttemptResult: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        case ok, httpStatus = "http_status", timeout, connect, exitCode = "exit_code", signal, expired
        /// The script is no longer a regular executable file in the scripts directory: not run.
        case refused
        /// The webhook's host resolved to an address it may not go to: not sent.
        case blocked
    }

    public var outcome: Outcome
    public var statusCode: Int?
    public var exitCode: Int?
    /// The first 4 KiB of the response body or the script's output.
    public var output: String
    /// Seconds the receiver asked us to wait (429/503 `Retry-After`).
    public var retryAfterSeconds: Int?
    public var durationMs: Int64 = 0

    public init(outcome: Outcome, statusCode: Int? = nil, exitCode: Int? = nil, output: String = "", retryAfterSeconds: Int? = nil) {
        self.outcome = outcome
        self.statusCode = statusCode
        self.exitCode = exitCode
        self.output = output
        self.retryAfterSeconds = retryAfterSeconds
    }

    public static let outputLimit = 4096

    /// Bytes as text, cut to `outputLimit` bytes on a character boundary.
    static func text(_ bytes: [UInt8]) -> String {
        var text = String(decoding: bytes.prefix(outputLimit), as: UTF8.self)
        while text.utf8.count > outputLimit { text.removeLast() }
        return text
    }
}
