import Handlers
import ButtonStore
import Buttons
import Delivery
import FoundationEssentials
import JSON
import MicroHTTP
import ThreadSupport
import Bridges
import TLSCertificates
import Logging

/// The pieces `ButtonServerApp.init` wires together: the TLS credentials, and what follows
/// every delivery attempt and every request (metrics, the log, handler health).
extension ButtonServerApp {
    /// `--tls-cert`/`--tls-key`, or the self-signed certificate, or none.
    static func tls(for options: ServeOptions, logger: Logger) throws(StartError) -> ServerConfiguration.TLSCredentials? {
        if options.tlsSelfSigned && options.tlsCert != nil {
            throw StartError(description: "--tls-self-signed or --tls-cert/--tls-key, not both")
        }
        switch (options.tlsCert, options.tlsKey) {
        case (let cert?, let key?):
            do {
                return try TLSFiles.load(certificate: cert, key: key, password: options.tlsKeyPassword)
            } catch {
                throw StartError(description: error.description)
            }
        case (nil, nil) where options.tlsSelfSigned:
            do {
                // The data directory must exist for the certificate; the store makes it too.
                try DataDirectory.create(options.dataDir)
                let files = try SelfSignedCertificate.ensure(dataDir: options.dataDir, host: options.host)
                logger.log(
                    .info, files.made ? "made a self-signed certificate" : "using the self-signed certificate",
                    ["file": files.certificate, "sha256": files.fingerprint], force: true)
                return try TLSFiles.load(certificate: files.certificate, key: files.key, password: nil)
            } catch let error as TLSFiles.Failure {
                throw StartError(description: error.description)
            } catch {
                throw StartError(description: "cannot open the data directory: \(error)")
            }
        case (nil, nil): return nil
        default: throw StartError(description: "--tls-cert and --tls-key go together: give both for HTTPS, or neither")
        }
    }

    /// After every delivery attempt: metrics and a log line; a 410 disables the handler; a
    /// change of health announces its button or sheet again. Given to the dispatcher's start.
    static func attemptObserver(
        metrics: Metrics, logger: Logger, health: HandlerHealth, handlers: HandlerRegistry, views: RegistryViews
    ) -> @Sendable (Dispatcher.Attempt) -> Void {
        { attempt in
            let result = attempt.result
            metrics.delivery(kind: attempt.kind, outcome: result.outcome.rawValue, seconds: Double(result.durationMs) / 1000)
            logger.log(
                result.outcome == .ok ? .info : .warn, "delivery",
                [
                    "delivery": attempt.delivery.publicID, "handler": attempt.delivery.handler, "attempt": String(attempt.number),
                    "outcome": result.outcome.rawValue, "status": attempt.delivery.status.name,
                    "code": result.statusCode.map(String.init) ?? result.exitCode.map(String.init) ?? "",
                    "duration_ms": String(result.durationMs),
                ])
            if attempt.decision == .finishAndDisable { handlers.disable(attempt.delivery.handler) }
            if health.record(attempt) || attempt.decision == .finishAndDisable, let handler = try? handlers.get(attempt.delivery.handler) {
                views.announce(owner: handler.owner)
            }
        }
    }

    /// After every connection answered 503 for a connection limit: counted, and logged at
    /// most once a second per address (SPEC §6: never dropped in silence).
    static func refusalObserver(metrics: Metrics, logger: Logger) -> @Sendable (ConnectionRefusal) -> Void {
        { refusal in
            metrics.connectionRefused(refusal.reason.rawValue)
            guard refusal.shouldLog else { return }
            logger.log(.warn, "connection refused: too many connections") { line in
                line.field("remote", refusal.address)
                line.field("limit", refusal.reason == .perAddress ? "max-connections-per-ip" : "max-connections")
                line.field("max", String(refusal.limit))
            }
        }
    }

    /// After every request: metrics (refusals of input counted by reason) and, at info, a log line.
    /// `inputRoutes`: the patterns of the routes that take input (declared with the press role).
    static func requestObserver(metrics: Metrics, logger: Logger, inputRoutes: Set<String>) -> @Sendable (RequestRecord) -> Void {
        { record in
            metrics.request(
                route: record.route, method: record.method, status: record.status, seconds: record.durationSeconds,
                role: record.principal?.role ?? "none")
            if record.status >= 400, inputRoutes.contains(record.route) {
                metrics.rejected(Metrics.rejectionReason(status: record.status))
            }
            guard logger.level <= .info else { return }
            let duration = milliseconds(micros: Int(record.durationSeconds * 1_000_000))
            logger.log(.info, "request", gathered: true) { line in
                line.field("method", record.method)
                line.field("path", record.path)
                line.field("route", record.route)
                line.field("status", String(record.status))
                line.field("duration_ms", duration)
                line.field("remote", record.remoteAddress)
                // A named token by its name, never its value; a fixed token by its role.
                if let principal = record.principal { line.field("token", principal.name) }
            }
        }
    }

    /// A request line's `duration_ms`: `micros` (never negative) as milliseconds with three
    /// decimals, `12.034`. Written as bytes: interpolating the parts cost a press more than
    /// the rest of its log line's fields together.
    static func milliseconds(micros: Int) -> String {
        let whole = micros / 1000
        var digits = 1
        var rest = whole
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        return String(unsafeUninitializedCapacity: digits + 4) { text in
            var value = whole
            for index in (0..<digits).reversed() {
                text[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            let fraction = micros % 1000
            text[digits] = UInt8(ascii: ".")
            text[digits + 1] = UInt8(ascii: "0") + UInt8(fraction / 100)
            text[digits + 2] = UInt8(ascii: "0") + UInt8(fraction / 10 % 10)
            text[digits + 3] = UInt8(ascii: "0") + UInt8(fraction % 10)
            return digits + 4
        }
    }

    /// What a handler's `{label}` reads for an event's button or sheet.
    static func labels(in registry: Registry) -> @Sendable (ControlEvent) -> EventLabels {
        { event in
            switch event.source {
            case .button(let id):
                guard let slot = try? registry.button(id) else { return EventLabels() }
                return slot.locked {
                    let faces = slot.definition.faces
                    let face = event.data.face.flatMap { faces.indices.contains(Int($0)) ? faces[Int($0)].label : nil }
                    return EventLabels(label: slot.definition.label, face: face)
                }
            case .sheet(let id):
                guard let slot = try? registry.sheet(id) else { return EventLabels() }
                return slot.locked {
                    let option = slot.definition.options.first { $0.id == event.data.option }?.label
                    return EventLabels(label: slot.definition.label, option: option)
                }
            }
        }
    }

    /// What is on disk into memory (unfinished deliveries, handlers, buttons and sheets with
    /// their state), then the `--config` file's registry on top.
    static func load(
        _ options: ServeOptions, registry: Registry, handlers: HandlerRegistry, dispatcher: Dispatcher, sequencer: Sequencer,
        destinations: DestinationRules, logger: Logger
    ) throws(StartError) {
        do {
            try dispatcher.load()
            try handlers.load()
            try sequencer.load()
        } catch {
            throw StartError(description: "cannot load the registry from \(options.dataDir): \(error)")
        }
        guard let file = options.configFile else { return }
        try applyConfig(
            file: file, context: Handler.Context(scriptsDir: options.scriptsDir, destinations: destinations),
            maxButtons: options.maxButtons, registry: registry, handlers: handlers, sequencer: sequencer, logger: logger)
    }

    /// On the broker, with `--mqtt-url`.
    static func mqttBridge(
        _ options: ServeOptions, registry: Registry, dispatcher: Dispatcher, logger: Logger, clock: Clock
    ) throws(StartError) -> MQTTBridge? {
        guard options.mqttURL != nil else { return nil }
        do {
            let configuration = MQTTBridge.Configuration(
                url: options.mqttURL ?? "", password: options.mqttPassword, caFile: options.mqttCA, prefix: options.mqttPrefix,
                instance: options.mqttInstance, commands: options.mqttCommands, discovery: options.haDiscovery,
                discoveryPrefix: options.haDiscoveryPrefix, version: BuildInfo.version)
            return try MQTTBridge(configuration: configuration, registry: registry, dispatcher: dispatcher, logger: logger, clock: clock)
        } catch {
            throw StartError(description: "--mqtt-url: \(error.description)")
        }
    }

    /// The `--osc-feedback` targets.
    static func oscFeedback(_ options: ServeOptions, registry: Registry) throws(StartError) -> OSCFeedback {
        do { return try OSCFeedback.parse(options.oscFeedback, registry: registry) } catch { throw StartError(description: error.description) }
    }

    /// OSC in, with `--osc-port`, from the senders `--osc-allow` names.
    static func oscBridge(
        _ options: ServeOptions, registry: Registry, sequencer: Sequencer, feedback: OSCFeedback, logger: Logger
    ) throws(StartError) -> OSCBridge {
        do {
            return try OSCBridge(
                configuration: OSCBridge.Configuration(host: options.host, port: options.oscPort, allow: options.oscAllow),
                registry: registry, sequencer: sequencer, feedback: feedback, logger: logger)
        } catch {
            throw StartError(description: error.description)
        }
    }

    /// The tokens (made and kept in the data directory when needed).
    static func auth(_ options: ServeOptions, store: ButtonStore, logger: Logger, clock: Clock) throws(StartError) -> Auth {
        do {
            return try Auth.resolve(options: options, named: NamedTokens(store: store), logger: logger, clock: clock)
        } catch {
            throw StartError(description: "\(error)")
        }
    }
}

extension ButtonServerApp {
    /// `--config FILE`, at start and on SIGHUP: read, validated and applied exactly as
    /// `PUT /api/v1/config` applies a document (the registry becomes the file), its plan logged.
    /// A file that cannot be read or is invalid changes nothing and says why.
    static func applyConfig(
        file: String, context: Handler.Context, maxButtons: Int, registry: Registry, handlers: HandlerRegistry,
        sequencer: Sequencer, logger: Logger
    ) throws(StartError) {
        do {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let config = try RegistryConfig.parse(try JSONParser.parse(Array(text.utf8)), context: context, maxButtons: maxButtons)
            _ = try config.apply(
                registry: registry, handlers: handlers, sequencer: sequencer, dryRun: false, logger: logger, source: file)
        } catch let error as ButtonsError {
            // The words a PUT /api/v1/config would answer with, naming the field.
            let field = error.details["field"].flatMap { if case .string(let f) = $0 { " (\(f))" } else { nil } } ?? ""
            throw StartError(description: "invalid --config \(file): \(error.message)\(field)")
        } catch let error as JSONParser.Failure {
            throw StartError(description: "invalid --config \(file): not JSON: \(error.description)")
        } catch {
            throw StartError(description: "cannot read --config \(file): \(error)")
        }
    }

    /// SIGHUP: applies `--config` again (a bad file is logged at warn and changes nothing)
    /// and reloads the certificate when serving HTTPS.
    public func reload() {
        if let file = options.configFile {
            do throws(StartError) {
                try Self.applyConfig(
                    file: file, context: Handler.Context(scriptsDir: options.scriptsDir, destinations: destinations.withLock { $0 }),
                    maxButtons: options.maxButtons, registry: registry, handlers: handlers, sequencer: sequencer, logger: logger)
            } catch {
                logger.log(.warn, "the config file was not applied; nothing changed", ["file": file, "error": error.description], force: true)
            }
        }
        if options.usesTLS { _ = reloadTLS() }
    }
}
