import JSON

/// What a handler's deliveries do, one case per kind: what its sender needs and nothing of
/// the handler around it (which events, whether enabled, retries). A handler holds one;
/// `HandlerSenders` makes its sender.
public enum DeliveryAction: Sendable, Equatable {
    case webhook(WebhookAction)
    case script(ScriptAction)
    case osc(OSCAction)

    /// Every kind, in the order the editor offers them.
    public static let kinds = ["webhook", "script", "osc"]

    /// Whether its deliveries are signed, so its handler has a secret (a webhook's).
    public var isSigned: Bool {
        if case .webhook = self { return true }
        return false
    }

    /// `webhook`, `script` or `osc`: the handler's kind and its attempts' `kind` label.
    public var kind: String {
        switch self {
        case .webhook: "webhook"
        case .script: "script"
        case .osc: "osc"
        }
    }
}

public struct WebhookAction: Sendable, Equatable {
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

public struct ScriptAction: Sendable, Equatable {
    /// A file directly in the scripts directory.
    public var name: String
    public var args: [String] = []
    public var timeoutMs: Int64 = 10_000

    public init(name: String) { self.name = name }
}

/// An OSC message sent to a show controller (SPEC §10): the address and string
/// arguments take the script placeholders.
public struct OSCAction: Sendable, Equatable {
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

