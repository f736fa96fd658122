/// What the delivery workers need to know of a handler, resolved by the server from its
/// registry each time a delivery is sent (so a change or a disable takes effect at once).
public struct HandlerSpec: Sendable {
    public enum Action: Sendable {
        case webhook(Webhook)
        case script(Script)
    }

    public struct Webhook: Sendable {
        public var url: String
        public var headers: [(String, String)]
        public var key: [UInt8]
        public var timeoutMs: Int
        public var connectTimeoutMs: Int

        public init(url: String, headers: [(String, String)], key: [UInt8], timeoutMs: Int, connectTimeoutMs: Int = 3000) {
            self.url = url
            self.headers = headers
            self.key = key
            self.timeoutMs = timeoutMs
            self.connectTimeoutMs = connectTimeoutMs
        }
    }

    public struct Script: Sendable {
        /// The scripts directory (working directory) and the file in it.
        public var directory: String
        public var name: String
        public var args: [String]
        public var timeoutMs: Int

        public init(directory: String, name: String, args: [String], timeoutMs: Int) {
            self.directory = directory
            self.name = name
            self.args = args
            self.timeoutMs = timeoutMs
        }
    }

    public var id: String
    public var enabled: Bool
    public var action: Action
    public var maxAttempts: Int
    public var expireAfterMs: Int64?

    public init(id: String, enabled: Bool, action: Action, maxAttempts: Int, expireAfterMs: Int64?) {
        self.id = id
        self.enabled = enabled
        self.action = action
        self.maxAttempts = maxAttempts
        self.expireAfterMs = expireAfterMs
    }
}

/// How one attempt ended, as the delivery log records it.
public struct AttemptResult: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        case ok, httpStatus = "http_status", timeout, connect, exitCode = "exit_code", signal, expired
        /// The script is no longer a regular executable file in the scripts directory: not run.
        case refused
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
