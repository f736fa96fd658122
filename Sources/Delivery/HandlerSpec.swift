/// What the delivery workers need to know of a handler. The server hands the dispatcher a new
/// spec whenever the handler changes (so a change or a disable takes effect at once); the
/// secret is decoded once, here.
public struct HandlerSpec: Sendable {
    public enum Action: Sendable {
        case webhook(Webhook)
        case script(Script)
    }

    public struct Webhook: Sendable {
        public var url: String
        /// `POST` (the default), `PUT`, `PATCH`, `GET` or `DELETE`; a `GET` sends no body.
        public var method: String
        /// Values may hold placeholders, filled from each delivery's event.
        public var headers: [(String, String)]
        public var key: [UInt8]
        public var timeoutMs: Int
        public var connectTimeoutMs: Int

        public init(
            url: String, method: String = "POST", headers: [(String, String)], key: [UInt8], timeoutMs: Int,
            connectTimeoutMs: Int = 3000
        ) {
            self.url = url
            self.method = method
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
    /// With `false`, a delivery waiting for its retry does not hold back later ones.
    public var ordered: Bool
    public var action: Action
    public var policy: DeliveryPolicy

    public init(id: String, enabled: Bool, ordered: Bool = true, action: Action, policy: DeliveryPolicy) {
        self.id = id
        self.enabled = enabled
        self.ordered = ordered
        self.action = action
        self.policy = policy
    }

    /// `webhook` or `script`.
    public var kind: String {
        switch action {
        case .webhook: "webhook"
        case .script: "script"
        }
    }
}

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
