import Buttons
import FoundationEssentials
import Platform
import Dispatch
import MicroHTTP
import Logging

/// Everything `buttond serve` can be told, from flags or their `BUTTOND_*` environment variables.
public struct ServeOptions: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var dataDir = "./data"
    public var publicDir = "./public"
    public var scriptsDir: String?
    public var adminToken: String?
    public var pressToken: String?
    public var logLevel = Logger.Level.info
    public var logFormat = Logger.Format.logfmt
    public var configFile: String?
    public var retention = 100_000
    public var maxButtons = 100_000
    public var maxQueue = 100_000
    /// How far ahead of the server clock an input's `t` may be (ms).
    public var maxFutureMs = 60_000
    /// Finished deliveries kept in the log.
    public var deliveryRetention = 100_000
    /// Webhooks may not go to loopback or private addresses either.
    public var webhookDenyPrivate = false
    /// `mqtt://[user[:pass]@]host[:port]` or `mqtts://…`: publish to, and take commands from, a broker.
    /// PEM files for HTTPS (both or neither), and the password of an encrypted key.
    public var tlsCert: String?
    public var tlsKey: String?
    public var tlsKeyPassword: String?
    /// Make (once) and use a self-signed certificate kept in the data directory.
    public var tlsSelfSigned = false
    public var mqttURL: String?
    public var mqttCA: String?
    /// Instead of one in the URL (`BUTTOND_MQTT_PASSWORD` keeps it out of `ps`).
    public var mqttPassword: String?
    public var mqttPrefix = "buttond"
    /// Names this buttond in MQTT topics and client id (default: the host name).
    public var instance: String?
    public var mqttCommands = false
    public var haDiscovery = true
    /// OSC in on this port, UDP and TCP (SPEC §10); nil: off.
    public var oscPort: Int?
    /// Senders whose OSC is read (CIDRs or addresses); nil: loopback only.
    public var oscAllow: [String]?
    /// `osc.udp://HOST:PORT` targets told of every change.
    public var oscFeedback: [String] = []
    public var haDiscoveryPrefix = "homeassistant"
    public var deliveryConcurrency = 16
    public var shutdownGraceSeconds = 10.0
    /// Multiplies the retry schedule; only tests change it.
    public var retryScale = 1.0
    public var http = ServerConfiguration()
    /// Where users reach the panel (a proxy's or a name's URL): its host is answered to, and it
    /// is the panel's address in what buttond prints and publishes.
    public var publicURL: String?

    public init() {}

    /// Whether `text` may be one level of an MQTT topic: 1–64 characters, no `/`, `+`, `#`,
    /// spaces or control characters.
    public static func isTopicLevel(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && !text.unicodeScalars.contains { "/+#".unicodeScalars.contains($0) || $0.value < 0x21 || $0.value == 0x7F }
    }

    /// The name in MQTT topics: `--instance`, else the host name if it can be a topic level.
    var mqttInstance: String { instance ?? Self.hostName().flatMap { Self.isTopicLevel($0) ? $0 : nil } ?? "buttond" }

    /// Whether the server speaks HTTPS.
    public var usesTLS: Bool { tlsCert != nil || tlsSelfSigned }

    /// `http(s)://host:port/`, an IPv6 address in brackets.
    func url(host: String, port: Int) -> String {
        "\(usesTLS ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(port)/"
    }

    /// Where a browser finds the panel: the address bound, or this machine's name when bound
    /// to every address (0.0.0.0 is nowhere a browser can go).
    func panelURL(port: Int) -> String {
        if let publicURL { return publicURL.hasSuffix("/") ? publicURL : publicURL + "/" }
        return url(host: host == "0.0.0.0" || host == "::" ? Self.hostName() ?? "localhost" : host, port: port)
    }

    /// The host of `publicURL`, lower-cased (an IPv6 address without brackets).
    var publicURLHost: String? {
        guard let publicURL, let host = URLParts(publicURL)?.host, !host.isEmpty else { return nil }
        return host.lowercased()
    }

    /// This machine's name up to its first dot, if it has one.
    static func hostName() -> String? {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count) == 0 else { return nil }
        let bytes = name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self).split(separator: ".").first.map(String.init)
    }
}
