import Handlers
import ButtonStore
import Buttons
import Delivery
import FoundationEssentials
import JSON
import MicroHTTP
import ThreadSupport
import Bridges
import Config
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
            // Written with others (≤ 2 ms later), as a request's: one write a delivery was a
            // system call for each. Numbers go in as numbers (no string made for each).
            logger.log(result.outcome == .ok ? .info : .warn, "delivery", gathered: true) { line in
                line.field("delivery", attempt.delivery.publicID)
                line.field("handler", attempt.delivery.handler)
                line.field("attempt", integer: attempt.number)
                line.field("outcome", result.outcome.rawValue)
                line.field("status", attempt.delivery.status.name)
                if let code = result.statusCode ?? result.exitCode { line.field("code", integer: code) } else { line.field("code", "") }
                line.field("duration_ms", integer: Int(result.durationMs))
            }
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
            logger.log(.info, "request", gathered: true) { line in
                line.field("method", record.method)
                line.field("path", record.path)
                line.field("route", record.route)
                line.field("status", integer: record.status)
                line.field("duration_ms", milliseconds: Int(record.durationSeconds * 1_000_000))
                line.field("remote", record.remoteAddress)
                // A named token by its name, never its value; a fixed token by its role.
                if let principal = record.principal { line.field("token", principal.name) }
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
            file: file, context: Handler.Context(scriptsDir: options.scriptsDir, destinations: destinations), registry: registry,
            handlers: handlers, sequencer: sequencer, logger: logger)
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
    /// `--config FILE`, at start and on SIGHUP (`RegistryConfig.apply(file:)`).
    static func applyConfig(
        file: String, context: Handler.Context, registry: Registry, handlers: HandlerRegistry, sequencer: Sequencer, logger: Logger
    ) throws(StartError) {
        let failure = RegistryConfig.apply(
            file: file, context: context, registry: registry, handlers: handlers, sequencer: sequencer, logger: logger, view: .admin)
        if let failure { throw StartError(description: failure) }
    }

    /// SIGHUP: applies `--config` again (a bad file is logged at warn and changes nothing)
    /// and reloads the certificate when serving HTTPS.
    public func reload() {
        if let file = options.configFile {
            do throws(StartError) {
                try Self.applyConfig(
                    file: file, context: Handler.Context(scriptsDir: options.scriptsDir, destinations: destinations.withLock { $0 }),
                    registry: registry, handlers: handlers, sequencer: sequencer, logger: logger)
            } catch {
                logger.log(.warn, "the config file was not applied; nothing changed", ["file": file, "error": error.description], force: true)
            }
        }
        if options.usesTLS { _ = reloadTLS() }
    }
}
