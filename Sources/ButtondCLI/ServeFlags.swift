import ButtonServer
import MicroHTTP
import Logging
import Platform

/// `buttond serve`'s flags and their `BUTTOND_*` environment variables, read into the
/// server's `ServeOptions`.
extension ServeOptions {
    public struct UsageError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Flag name (without `--`), its environment variable, and what it sets.
    struct Setting: Sendable {
        var flag: String
        var help: String
        /// A switch: `--flag` alone means `true` (`--flag=false` and the variable set to
        /// `false` or `0` turn it off).
        var isSwitch = false
        var apply: @Sendable (inout ServeOptions, String) throws(UsageError) -> Void
        var env: String { "BUTTOND_" + flag.uppercased().replacing("-", with: "_") }
    }

    /// A value that goes into MQTT topics.
    static func topicLevel(_ flag: String, _ text: String) throws(UsageError) -> String {
        guard ServeOptions.isTopicLevel(text) else {
            throw UsageError(description: "--\(flag) must be 1-64 characters with no '/', '+', '#', spaces or control characters")
        }
        return text
    }

    static func bool(_ flag: String, _ text: String) throws(UsageError) -> Bool {
        switch text.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw UsageError(description: "--\(flag) is a switch: true or false, not '\(text)'")
        }
    }

    static func int(_ flag: String, _ text: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(description: "--\(flag) must be an integer between \(range.lowerBound) and \(range.upperBound), not '\(text)'")
        }
        return value
    }

    /// A repeatable flag's values: each use adds one; its variable holds a comma-separated list.
    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmed() }.filter { !$0.isEmpty }
    }

    static func publicURL(_ text: String) throws(UsageError) -> String {
        guard let url = URLParts(text), url.isHTTP, text.count > 8, !text.contains(" ") else {
            throw UsageError(description: "--public-url must be an http:// or https:// URL, not '\(text)'")
        }
        return text
    }

    /// A browser's `Origin` is `scheme://host[:port]`: a `/` at the end is forgiven, any other is a path.
    static func origin(_ text: String) throws(UsageError) -> String {
        guard let url = URLParts(text), url.isHTTP, !url.isEmptyAfterScheme, !url.rest.dropLast().contains("/") else {
            throw UsageError(description: "--allow-origin takes an origin, scheme://host[:port] (as a browser sends it), not '\(text)'")
        }
        return text
    }

    static let settings: [Setting] = [
        Setting(flag: "host", help: "address to listen on (default 127.0.0.1)") { o, v in o.host = v },
        Setting(flag: "port", help: "port to listen on, 0 for any (default 8080)") { o, v throws(UsageError) in o.port = try int("port", v, 0...65535) },
        Setting(flag: "data-dir", help: "where the SQLite database lives (default ./data)") { o, v in o.dataDir = v },
        Setting(flag: "public-dir", help: "the control panel's files (default ./public)") { o, v in o.publicDir = v },
        Setting(flag: "scripts-dir", help: "enables script handlers, run from this directory") { o, v in o.scriptsDir = v },
        // An empty token is no token (as an empty variable is): off loopback one is made.
        Setting(flag: "admin-token", help: "token for everything under /api/v1") { o, v in o.adminToken = v.isEmpty ? nil : v },
        Setting(flag: "press-token", help: "token that may read and send input") { o, v in o.pressToken = v.isEmpty ? nil : v },
        Setting(flag: "log-level", help: "debug, info, warn or error (default info)") { o, v throws(UsageError) in
            guard let level = Logger.Level(rawValue: v) else { throw UsageError(description: "--log-level must be debug, info, warn or error") }
            o.logLevel = level
        },
        Setting(flag: "log-format", help: "logfmt or json (default logfmt)") { o, v throws(UsageError) in
            guard let format = Logger.Format(rawValue: v) else { throw UsageError(description: "--log-format must be logfmt or json") }
            o.logFormat = format
        },
        Setting(
            flag: "config",
            help: "JSON file (the shape of GET /api/v1/config) the registry is made at start and on SIGHUP (a new webhook's secret: rotate-secret)"
        ) { o, v in o.configFile = v },
        Setting(flag: "retention", help: "events kept in the history (default 100000)") { o, v throws(UsageError) in
            o.retention = try int("retention", v, 100...100_000_000)
        },
        Setting(flag: "max-buttons", help: "registry limit (default 100000)") { o, v throws(UsageError) in
            o.maxButtons = try int("max-buttons", v, 1...10_000_000)
        },
        Setting(flag: "max-queue", help: "undelivered deliveries before input is refused with 503 (default 100000)") { o, v throws(UsageError) in
            o.maxQueue = try int("max-queue", v, 1...100_000_000)
        },
        Setting(flag: "max-future-ms", help: "how far ahead of the server clock an input's t may be (default 60000)") {
            o, v throws(UsageError) in o.maxFutureMs = try int("max-future-ms", v, 0...315_360_000_000)
        },
        Setting(flag: "delivery-retention", help: "finished deliveries kept in the log (default 100000)") { o, v throws(UsageError) in
            o.deliveryRetention = try int("delivery-retention", v, 0...100_000_000)
        },
        Setting(flag: "webhook-deny-private", help: "webhooks may not go to loopback or private addresses either", isSwitch: true) {
            o, v throws(UsageError) in o.webhookDenyPrivate = try bool("webhook-deny-private", v)
        },
        Setting(flag: "tls-cert", help: "PEM certificate (chain) file: serve HTTPS (with --tls-key)") { o, v in o.tlsCert = v },
        Setting(flag: "tls-key", help: "PEM private key file for --tls-cert") { o, v in o.tlsKey = v },
        Setting(flag: "tls-key-password", help: "the password of an encrypted --tls-key") { o, v in o.tlsKeyPassword = v },
        Setting(flag: "tls-self-signed", help: "serve HTTPS with a self-signed certificate kept in the data dir", isSwitch: true) {
            o, v throws(UsageError) in o.tlsSelfSigned = try bool("tls-self-signed", v)
        },
        Setting(flag: "mqtt-url", help: "mqtt://[user:pass@]host:port (or mqtts://): publish events and state to a broker") {
            o, v in o.mqttURL = v
        },
        Setting(flag: "mqtt-password", help: "the broker password, if not in the URL") { o, v in o.mqttPassword = v },
        Setting(flag: "mqtt-ca", help: "CA certificate file for mqtts:// (default: the system's)") { o, v in o.mqttCA = v },
        Setting(flag: "mqtt-prefix", help: "MQTT topic prefix (default buttond)") { o, v throws(UsageError) in
            o.mqttPrefix = try topicLevel("mqtt-prefix", v)
        },
        Setting(flag: "instance", help: "this buttond's name in MQTT topics (default the host name)") { o, v throws(UsageError) in
            o.instance = try topicLevel("instance", v)
        },
        Setting(flag: "mqtt-commands", help: "accept commands on <prefix>/<instance>/button/<id>/set", isSwitch: true) {
            o, v throws(UsageError) in o.mqttCommands = try bool("mqtt-commands", v)
        },
        Setting(flag: "osc-port", help: "take OSC on this port, UDP and TCP, bound like --host (default off)") {
            o, v throws(UsageError) in o.oscPort = try int("osc-port", v, 0...65535)
        },
        Setting(flag: "osc-allow", help: "CIDRs whose OSC is read (repeatable; default 127.0.0.0/8,::1/128)") { o, v in
            o.oscAllow = (o.oscAllow ?? []) + list(v)
        },
        Setting(flag: "osc-feedback", help: "osc.udp://HOST:PORT told of every change (repeatable)") { o, v in
            o.oscFeedback += list(v)
        },
        Setting(flag: "ha-discovery-prefix", help: "Home Assistant discovery prefix (default homeassistant)") {
            o, v throws(UsageError) in o.haDiscoveryPrefix = try topicLevel("ha-discovery-prefix", v)
        },
        Setting(flag: "no-ha-discovery", help: "do not publish Home Assistant discovery", isSwitch: true) {
            o, v throws(UsageError) in o.haDiscovery = !(try bool("no-ha-discovery", v))
        },
        Setting(flag: "delivery-concurrency", help: "deliveries sent at once (default 16)") { o, v throws(UsageError) in
            o.deliveryConcurrency = try int("delivery-concurrency", v, 1...1024)
        },
        Setting(flag: "threads", help: "HTTP worker threads (default one a usable CPU, at least 2, at most 64)") { o, v throws(UsageError) in
            o.http.threads = try int("threads", v, 1...256)
        },
        Setting(flag: "max-connections", help: "open connections at most; more are answered 503 (default 1000)") { o, v throws(UsageError) in
            o.http.connectionLimit = try int("max-connections", v, 1...100_000)
        },
        Setting(flag: "max-connections-per-ip", help: "open connections from one address; more are answered 503 (default 64)") { o, v throws(UsageError) in
            o.http.perIPConnectionLimit = try int("max-connections-per-ip", v, 1...100_000)
        },
        Setting(
            flag: "trusted-proxy",
            help: "a reverse proxy's address or CIDR: no per-address limit, its X-Forwarded-For is the logged client (repeatable)"
        ) { o, v throws(UsageError) in
            for text in list(v) {
                guard let range = AddressRange(text) else {
                    throw UsageError(description: "--trusted-proxy takes an address or a CIDR (10.0.0.0/8, ::1/128), not '\(text)'")
                }
                o.http.trustedProxies.append(range)
            }
        },
        Setting(flag: "idle-timeout", help: "seconds before an idle connection is closed (default 30)") { o, v throws(UsageError) in
            o.http.idleTimeoutSeconds = try int("idle-timeout", v, 1...86_400)
        },
        Setting(flag: "request-timeout", help: "seconds a connection may take to send a whole request, 0 for none (default 10)") {
            o, v throws(UsageError) in o.http.requestDeadlineSeconds = try int("request-timeout", v, 0...3600)
        },
        Setting(flag: "header-timeout", help: "the old name of --request-timeout") { o, v throws(UsageError) in
            o.http.requestDeadlineSeconds = try int("header-timeout", v, 0...3600)
        },
        Setting(flag: "max-streams", help: "open event streams at most (default 500)") { o, v throws(UsageError) in
            o.http.maxStreams = try int("max-streams", v, 1...100_000)
        },
        Setting(flag: "public-url", help: "the URL users reach the panel at (a proxy's, a name's): its host is answered to") {
            o, v throws(UsageError) in o.publicURL = try publicURL(v)
        },
        Setting(flag: "allow-host", help: "a host name to answer to besides loopback and this machine's (repeatable; *.example.org)") {
            o, v in o.http.gate.allowedHosts += list(v)
        },
        Setting(flag: "allow-origin", help: "a web page origin (scheme://host[:port]) that may call the API (repeatable)") {
            o, v throws(UsageError) in
            for text in list(v) { o.http.gate.allowedOrigins.append(try origin(text)) }
        },
        Setting(flag: "frame-ancestors", help: "CSP frame-ancestors sources that may embed the panel (default 'self')") { o, v in
            o.http.frameAncestors = v.trimmed().isEmpty ? "'self'" : v.trimmed()
        },
    ]

    /// Reads the environment first, then the flags (flags win).
    public static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> ServeOptions {
        var options = ServeOptions()
        for setting in settings {
            if let value = environment[setting.env], !value.isEmpty { try setting.apply(&options, value) }
        }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else { throw UsageError(description: "unexpected argument '\(argument)'") }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let setting = settings.first(where: { $0.flag == name }) else {
                throw UsageError(description: "unknown option '--\(name)'")
            }
            if value == nil && setting.isSwitch {
                value = "true"
            } else if value == nil {
                index += 1
                guard index < arguments.count else { throw UsageError(description: "--\(name) needs a value") }
                value = arguments[index]
            }
            try setting.apply(&options, value!)
            index += 1
        }
        options.http.host = options.host
        options.http.port = options.port
        return options
    }

    public static var help: String {
        var text = "Options of `buttond serve` (each also read from its environment variable):\n"
        for setting in settings {
            let flag = "  --\(setting.flag)" + (setting.isSwitch ? "" : " VALUE")
            let padded = flag.count < 34 ? flag + String(repeating: " ", count: 34 - flag.count) : flag + " "
            text += padded + setting.help + "  [\(setting.env)]\n"
        }
        return text
    }
}
