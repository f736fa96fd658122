import Outbox
import Handlers
import Buttons
import ButtonEngine
import ButtonStore
import Delivery
import FoundationEssentials
import Platform
import Dispatch
import MicroHTTP
import ThreadSupport
import Bridges
import TLSCertificates
import Logging

/// The whole server: the store, the registry, the engine service and the HTTP routes.
/// `buttond serve` and the live tests both start exactly this.
public final class ButtonServerApp: Sendable {
    public let options: ServeOptions
    let logger: Logger
    let store: ButtonStore
    let registry: Registry
    let log: EventLog
    let publisher: StreamPublisher
    let sequencer: Sequencer
    let handlers: HandlerRegistry
    let dispatcher: Dispatcher
    /// Every delivery's id, handlers' and MQTT publishing's alike.
    let deliveryIDs: DeliveryIDs
    let streams: StreamHub
    /// The one clock every part reads the time from.
    let clock: Clock
    let metrics: Metrics
    let health = HandlerHealth()
    /// Buttons, sheets and handlers as the API and the stream show them.
    let views: RegistryViews
    /// On the broker, with `--mqtt-url`.
    let mqtt: MQTTBridge?
    /// OSC in (`--osc-port`) and feedback (`--osc-feedback`); nil with neither.
    let osc: OSCBridge?
    /// Where webhooks may go: checked at registration (literal hosts) and on every connection.
    let destinations: Locked<DestinationRules>
    private let server: HTTPServer
    /// Where pages of the logs are read and rendered, below the presses' priority.
    private let slowLane = SlowLane()
    /// Every route with its declared access: the OpenAPI document and the access table are
    /// checked against it.
    let routeTable: [APIRouter.Entry]

    /// Why the server could not start: the HTTP server's one start error, whatever part failed.
    public typealias StartError = HTTPServer.StartError

    /// The server on `clock` (`Clock.system` in `buttond serve`), which every part that reads
    /// the time is given.
    public init(options: ServeOptions, clock: Clock) throws(StartError) {
        self.options = options
        self.clock = clock
        metrics = Metrics(clock: clock)
        logger = Logger(level: options.logLevel, format: options.logFormat, clock: clock)
        // The port is known here unless it is 0: a `--config` handler is judged by the rules
        // its own route uses, the loop to our own port included.
        destinations = Locked(Self.destinationRules(options, port: options.port, oscPort: options.oscPort))
        let destinations = self.destinations
        var http = options.http
        http.tls = try Self.tls(for: options, logger: logger)
        if let host = options.publicURLHost { http.gate.allowedHosts.append(host) }
        do {
            store = try ButtonStore(directory: options.dataDir, clock: clock)
            let registry = Registry(store: store, maxButtons: options.maxButtons, icons: Self.iconNames(in: options.publicDir + "/icons"))
            self.registry = registry
            // The registry tells the dispatcher of every handler change, so the dispatcher is
            // made first; what an attempt's outcome changes above it (a 410 disables the
            // handler, health is announced by the views) is handed to its start.
            dispatcher = Dispatcher(
                store: store, clock: clock, concurrency: options.deliveryConcurrency, userAgent: "buttond/\(BuildInfo.version)",
                retention: options.deliveryRetention, retryScale: options.retryScale)
            deliveryIDs = DeliveryIDs(after: try store.lastDeliveryID())
            let handlers = HandlerRegistry(
                store: store, scriptsDir: options.scriptsDir, dispatcher: dispatcher, ids: deliveryIDs,
                labels: registry.eventLabels)
            self.handlers = handlers
            log = try EventLog(store: store, retention: options.retention)
        } catch {
            throw StartError(description: "cannot open the data directory: \(error.description)")
        }
        publisher = StreamPublisher(log: log, publishedThrough: log.lastSeq)
        let views = RegistryViews(registry: registry, handlers: handlers, health: health, publisher: publisher)
        self.views = views
        registry.onChange { change in views.announce(change) }
        mqtt = try Self.mqttBridge(options, registry: registry, dispatcher: dispatcher, logger: logger, clock: clock)
        let feedback = try Self.oscFeedback(options, registry: registry)
        let streams = StreamHub(maxStreams: options.http.maxStreams)
        self.streams = streams
        sequencer = Sequencer(
            registry: registry, log: log, publisher: publisher,
            handlers: CombinedDeliveryRules([handlers] + (mqtt == nil ? [] : [MQTTEventSender.Rules(ids: deliveryIDs)])),
            dispatcher: dispatcher,
            observer: CommitObservers([metrics] + (mqtt.map { [$0] } ?? []) + (feedback.targets.isEmpty ? [] : [feedback])), clock: clock, maxQueue: options.maxQueue,
            maxFutureMs: Int64(options.maxFutureMs), answers: ResumeTogether(suspension: streams.suspension))
        let osc = try Self.oscBridge(options, registry: registry, sequencer: sequencer, feedback: feedback, logger: logger)
        self.osc = osc.isEnabled ? osc : nil
        try Self.load(
            options, registry: registry, handlers: handlers, dispatcher: dispatcher, sequencer: sequencer,
            destinations: destinations.withLock { $0 }, logger: logger)
        let api = try API(
            options: options, logger: logger, auth: Self.auth(options, store: store, logger: logger, clock: clock), registry: registry, sequencer: sequencer, log: log, publisher: publisher,
            handlers: handlers, dispatcher: dispatcher, destinations: destinations, views: views, streams: streams,
            slowLane: slowLane)
        var router = api.makeRouter()
        Self.addOperationRoutes(to: &router, metrics: metrics, dispatcher: dispatcher, streams: streams, registry: registry, mqtt: mqtt, osc: self.osc)
        routeTable = router.table
        http.recordsRemoteAddress = logger.level <= .info
        server = HTTPServer(
            configuration: http, clock: clock, router: APIRouting(router: router), streams: streams,
            onRequest: Self.requestObserver(
                metrics: metrics, logger: logger,
                inputRoutes: Set(routeTable.filter { $0.access.role == .press }.map(\.pattern))),
            onConnectionRefused: Self.refusalObserver(metrics: metrics, logger: logger))
    }

    /// One long-lived part: what starts it and what stops it.
    struct Service {
        var name: String
        var start: () throws -> Void
        var stop: () -> Void
    }

    /// The long-lived parts, in the one order they start in; they stop in the reverse order.
    /// The store comes first (opened by `init`, since every part loads from it) and closes
    /// last, with its checkpointer; the engine runs before the HTTP server takes a request;
    /// the dispatcher, the bridges and OSC start once the port is known (a webhook or an OSC
    /// message may not loop back to it) and stop first (after the HTTP server has stopped
    /// accepting: `stop`), finishing what is in flight (the shutdown grace).
    var services: [Service] {
        let (options, sequencer, publisher, slowLane, server, dispatcher) = (options, sequencer, publisher, slowLane, server, dispatcher)
        var services = [
            Service(name: "store", start: {}, stop: store.close),
            Service(name: "sequencer", start: sequencer.start, stop: sequencer.stop),
            Service(name: "publisher", start: publisher.start, stop: publisher.stop),
            Service(name: "slow lane", start: slowLane.start, stop: slowLane.stop),
            Service(name: "http", start: server.start, stop: server.stop),
            Service(
                name: "dispatcher",
                start: { [self] in
                    dispatcher.start(
                        rules: listeningRules(),
                        onAttempt: Self.attemptObserver(metrics: metrics, logger: logger, health: health, handlers: handlers, views: views))
                },
                stop: { dispatcher.stop(waitingUpTo: options.shutdownGraceSeconds) }),
        ]
        if let mqtt {
            services.append(
                Service(
                    name: "mqtt",
                    start: { [self] in
                        mqtt.start(sequencer: sequencer, retryScale: options.retryScale, panelURL: options.panelURL(port: port))
                    },
                    stop: mqtt.stop))
        }
        if let osc { services.append(Service(name: "osc", start: osc.start, stop: osc.stop)) }
        return services
    }

    /// Starts every service in order; if one fails, those already started stop again.
    public func start() throws {
        let services = services
        for (index, service) in services.enumerated() {
            do {
                try service.start()
            } catch {
                for started in services[..<index].reversed() { started.stop() }
                throw error
            }
        }
        logger.log(.info, "listening", ["url": options.url(host: options.host, port: port), "data_dir": options.dataDir], force: true)
        if !options.usesTLS && !Auth.isLoopback(options.host) {
            logger.log(
                .warn, "serving plain HTTP off loopback: tokens and presses travel in clear; use --tls-cert and --tls-key",
                ["host": options.host], force: true)
        }
    }

    /// Where webhooks and OSC messages may go, now that the port is known: not back to it, nor
    /// to our own OSC port.
    private func listeningRules() -> DestinationRules {
        let rules = Self.destinationRules(options, port: port, oscPort: osc?.server?.port)
        destinations.withLock { $0 = rules }
        return rules
    }

    /// Where webhooks and OSC messages may go when the server listens on `port` (and OSC on
    /// `oscPort`): not back to either.
    static func destinationRules(_ options: ServeOptions, port: Int, oscPort: Int?) -> DestinationRules {
        var rules = DestinationRules(denyPrivate: options.webhookDenyPrivate)
        rules.listeners = port == 0 ? [] : DestinationRules.listener(host: options.host, port: port).map { [$0] } ?? []
        if let oscPort, oscPort != 0, let own = DestinationRules.listener(host: options.host, port: oscPort) {
            rules.listeners.append(own)
        }
        rules.localAddresses = DestinationRules.interfaceAddresses()
        return rules
    }

    /// The names of the `.svg` files in `directory` (the panel's icon set).
    static func iconNames(in directory: String) -> Set<String> {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(files.filter { $0.hasSuffix(".svg") }.map { String($0.dropLast(4)) })
    }

    /// SIGHUP: reads the certificate and key again and serves new connections with them; open
    /// connections go on with the old ones. Nil when done, else why not (the old stay in use).
    public func reloadTLS() -> String? {
        let credentials: ServerConfiguration.TLSCredentials
        do {
            if let cert = options.tlsCert, let key = options.tlsKey {
                credentials = try TLSFiles.load(certificate: cert, key: key, password: options.tlsKeyPassword)
            } else if options.tlsSelfSigned {
                let files = try SelfSignedCertificate.ensure(dataDir: options.dataDir, host: options.host)
                credentials = try TLSFiles.load(certificate: files.certificate, key: files.key, password: nil)
            } else {
                return "not serving HTTPS: nothing to reload"
            }
            try server.reload(tls: credentials)
        } catch {
            logger.log(.error, "the certificate was not reloaded; the old one stays in use", ["error": "\(error)"], force: true)
            return "\(error)"
        }
        logger.log(.info, "reloaded the certificate", ["file": options.tlsCert ?? options.dataDir + "/tls"], force: true)
        return nil
    }

    /// The bound port (useful with port 0).
    public var port: Int { server.port }

    /// SIGTERM (SPEC §2): first the HTTP server stops accepting, ends streams and finishes
    /// the requests that have begun (at most `drainSeconds`, 5 s; the engine still answers
    /// them). Then every service stops in the reverse of the order they started in: OSC and
    /// the MQTT bridge, the dispatcher (waiting up to the grace for deliveries in flight; a
    /// script calling back finds the port closed), the HTTP daemon, the engine, and last the
    /// database.
    public func stop() {
        logger.log(.info, "stopping", [:], force: true)
        server.stopAccepting()
        for service in services.reversed() { service.stop() }
        logger.log(.info, "stopped", [:], force: true)
    }
}

extension ButtonServerApp {
    /// The operator's routes, made of the parts they report on: `/metrics` and the MQTT status.
    static func addOperationRoutes(
        to router: inout APIRouter, metrics: Metrics, dispatcher: Dispatcher, streams: StreamHub, registry: Registry,
        mqtt: MQTTBridge?, osc: OSCBridge?
    ) {
        router.get("/api/v1/mqtt", access: .admin(.deployment)) { _, _ in .json(mqtt?.status ?? ["enabled": false]) }
        router.get("/metrics", access: .read(.deployment)) { _, _ in
            var response = Response.text(
                metrics.render(
                    outboxDepth: dispatcher.depth, droppedDeliveries: dispatcher.dropped, openStreams: streams.count,
                    buttons: registry.buttonCount, mqtt: mqtt?.metrics, osc: osc?.metrics))
            response.headers = [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")]
            return response
        }
    }
}

/// The parts the API's routes need; the route files extend it, one area each.
struct API: Sendable {
    let options: ServeOptions
    let logger: Logger
    let auth: Auth
    let registry: Registry
    let sequencer: Sequencer
    let log: EventLog
    let publisher: StreamPublisher
    let handlers: HandlerRegistry
    let dispatcher: Dispatcher
    let destinations: Locked<DestinationRules>
    let views: RegistryViews
    let streams: StreamHub
    /// Where pages of the logs are read and rendered, below the presses' priority.
    let slowLane: SlowLane

    func makeRouter() -> APIRouter {
        var router = APIRouter(guard: APIGuard(api: self))
        router.refusesUnknownQuery = true
        router.get("/healthz", access: .open) { _, _ in .text("ok") }
        let openAPI = Array(OpenAPIDocument.json.utf8)
        router.get("/api/v1/openapi.json", access: .read()) { _, _ in .json(bytes: openAPI) }
        router.get("/api/v1/icons", access: .read()) { _, _ in .json(["icons": .array(registry.icons.sorted().map { .string($0) })]) }
        addRegistryRoutes(to: &router)
        addInputRoutes(to: &router)
        addEventRoutes(to: &router)
        addHandlerRoutes(to: &router)
        addConfigRoutes(to: &router)
        addTokenRoutes(to: &router)
        addVocabularyRoutes(to: &router)
        let files = StaticFiles(root: options.publicDir)
        router.fallback = { request in
            if request.path == "/api" || request.path.hasPrefix("/api/") {
                throw ButtonsError.notFound("no API route \(request.method) \(request.path)")
            }
            return try files.serve(request)
        }
        return router
    }
}
