import ButtonEngine
import JSON

/// A handler: which events of one button or sheet fire it, and the webhook or script it runs.
///
/// The one shape of a handler: the API reads and renders it, the store keeps it in typed
/// columns, the dispatcher runs it.
public struct Handler: Sendable, Equatable {
    public struct Webhook: Sendable, Equatable {
        public var url: String
        /// `POST`, `PUT`, `PATCH`, `GET` (no body) or `DELETE`.
        public var method = "POST"
        /// Values may hold placeholders, filled from each delivery's event.
        public var headers: [String: String] = [:]
        /// A JSON template sent instead of the event (SPEC §5 "Shaping a webhook request").
        public var body: JSONValue?
        public var timeoutMs: Int64 = 10_000

        public static let methods = ["POST", "PUT", "PATCH", "GET", "DELETE"]

        public init(url: String) { self.url = url }
    }

    public struct Script: Sendable, Equatable {
        /// A file directly in the scripts directory.
        public var name: String
        public var args: [String] = []
        public var timeoutMs: Int64 = 10_000

        public init(name: String) { self.name = name }
    }

    /// An OSC message sent to a show controller (SPEC §10): the address and string
    /// arguments take the script placeholders.
    public struct OSC: Sendable, Equatable {
        /// One typed argument: `type` is an OSC type tag (`i h f d s T F N`), `value` a JSON
        /// value of that type or a string holding placeholders.
        public struct Argument: Sendable, Equatable {
            public var type: String
            public var value: JSONValue

            public init(type: String, value: JSONValue) {
                self.type = type
                self.value = value
            }
        }

        /// `osc.udp://HOST:PORT` or `osc.tcp://HOST:PORT`.
        public var url: String
        public var address: String
        public var args: [Argument] = []
        /// TCP framed as OSC 1.1 (SLIP) rather than OSC 1.0 (a size before each packet).
        public var slip = false

        public static let types = ["i", "h", "f", "d", "s", "T", "F", "N"]

        public init(url: String, address: String) {
            self.url = url
            self.address = address
        }
    }

    public enum Action: Sendable, Equatable {
        case webhook(Webhook)
        case script(Script)
        case osc(OSC)
    }

    public var id: String
    public var owner: Source
    public var on: [EventType]
    /// For a sheet's `select`: only this option.
    public var option: String?
    public var enabled = true
    /// With `false`, a delivery waiting for its retry does not hold back later ones.
    public var ordered = true
    public var action: Action
    public var maxAttempts: Int64
    public var expireAfterMs: Int64?

    public init(
        id: String, owner: Source, on: [EventType], option: String? = nil, enabled: Bool = true, ordered: Bool = true,
        action: Action, maxAttempts: Int64, expireAfterMs: Int64? = nil
    ) {
        self.id = id
        self.owner = owner
        self.on = on
        self.option = option
        self.enabled = enabled
        self.ordered = ordered
        self.action = action
        self.maxAttempts = maxAttempts
        self.expireAfterMs = expireAfterMs
    }

    /// `webhook`, `script` or `osc`.
    public var kind: String {
        switch action {
        case .webhook: "webhook"
        case .script: "script"
        case .osc: "osc"
        }
    }
}
