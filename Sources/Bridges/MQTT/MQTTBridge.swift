import ButtonEngine
import ButtonStore
import Buttons
import Delivery
import Dispatch
import Platform
import JSON
import Logging
import MQTT
import ThreadSupport

/// buttond on an MQTT broker (SPEC §9): events out through the delivery log (the target
/// `mqtt`), retained state and availability, Home Assistant discovery that follows the
/// registry, and, with `--mqtt-commands`, commands in through the sequencer.
package final class MQTTBridge: CommitObserver {
    let client: MQTTClient
    /// `<prefix>/<instance>`.
    let base: String
    let instance: String
    let url: String
    /// Made at init; its panel URL is known only once the server listens (`start`).
    private let discoveryBox: Locked<HomeAssistantDiscovery>?
    var discovery: HomeAssistantDiscovery? { discoveryBox?.withLock { $0 } }
    let acceptsCommands: Bool
    let registry: Registry
    let dispatcher: Dispatcher
    let logger: Logger
    /// What tombstones are dated by (and the client's waits measured on).
    let clock: Clock
    /// The discovery config topics published for each button (`button:<id>`), sheet
    /// (`sheet:<id>`) and the instance (`instance`), so a change or a delete can clear what is
    /// no longer there. Its lock also orders those publications with the sweep's clearing.
    let configTopics = Locked<[String: [String: [UInt8]]]>([:])
    /// The option last chosen on each sheet (nil: none ever was), for its retained state: read
    /// from the history once per sheet, then kept up to date.
    let sheetChoices = Locked<[String: String?]>([:])
    /// Whether the broker connection is in trouble (warned once, and once when it recovers).
    private let troubled = Locked(false)
    /// Tombstones are kept this long (SPEC §9: 30 days).
    static let tombstoneMs: Int64 = 30 * 24 * 3600 * 1000
    /// The filters the present sweep still reads, and a count of sweeps (so the end of an old
    /// one leaves a newer one's subscriptions alone).
    private let sweeping = Locked<(generation: Int, filters: Set<String>)>((0, []))
    private let commandsSeen = Locked(0)
    /// Look changes from commands, one at a time, off the network thread.
    private let looks = DispatchQueue(label: "buttond.mqtt.looks")

    /// buttond's version, told to Home Assistant as the instance device's `sw_version`.
    let version: String

    /// What the bridge is told of the broker and of Home Assistant; `ButtonServer` makes it
    /// from `serve`'s flags.
    package struct Configuration: Sendable {
        /// `mqtt://[user[:pass]@]host[:port]` or `mqtts://…`.
        package var url: String
        /// Instead of one in the URL.
        package var password: String?
        package var caFile: String?
        /// Topics are `<prefix>/<instance>/…`; the instance also names the client.
        package var prefix: String
        package var instance: String
        /// Commands in (`…/set` topics), and Home Assistant entities that send them.
        package var commands: Bool
        /// Home Assistant discovery, under `discoveryPrefix`.
        package var discovery: Bool
        package var discoveryPrefix: String
        package var version: String

        package init(
            url: String, password: String?, caFile: String?, prefix: String, instance: String, commands: Bool, discovery: Bool,
            discoveryPrefix: String, version: String
        ) {
            (self.url, self.password, self.caFile, self.prefix, self.instance) = (url, password, caFile, prefix, instance)
            (self.commands, self.discovery, self.discoveryPrefix, self.version) = (commands, discovery, discoveryPrefix, version)
        }
    }

    package init(
        configuration: Configuration, registry: Registry, dispatcher: Dispatcher, logger: Logger, clock: Clock
    ) throws(MQTTError) {
        let instance = configuration.instance
        var client = try MQTTClient.Options.parse(url: configuration.url, clientID: "buttond-" + instance)
        if let password = configuration.password { client.password = password }
        if let ca = configuration.caFile { client.caFile = ca }
        base = "\(configuration.prefix)/\(instance)"
        client.will = MQTTClient.Message(topic: "\(base)/status", payload: Array("offline".utf8), qos: 1, retain: true)
        self.client = MQTTClient(options: client, clock: clock)
        self.instance = instance
        url = MQTTBridge.redacted(configuration.url)
        discoveryBox =
            configuration.discovery
            ? Locked(
                HomeAssistantDiscovery(
                    prefix: configuration.discoveryPrefix, base: base, instance: instance, commands: configuration.commands))
            : nil
        acceptsCommands = configuration.commands
        version = configuration.version
        self.registry = registry
        self.dispatcher = dispatcher
        self.logger = logger
        self.clock = clock
    }

    /// Connects (in the background; it keeps trying) and starts following the registry.
    package func start(sequencer: Sequencer, retryScale: Double, panelURL: String) {
        discoveryBox?.withLock { $0.configurationURL = panelURL }
        dispatcher.setSender(
            MQTTEventSender(client: client, base: base, threads: DeliveryThreads()), id: MQTTEventSender.targetID,
            policy: DeliveryPolicy(maxAttempts: .max, fixedRetryMs: Int64(1000 * retryScale)))
        client.onConnect { [self] in connected() }
        client.onMessage { [self] message in received(message, commandsTo: sequencer) }
        client.onTrouble { [self] error in
            if troubled.withLock({ was in defer { was = true }; return !was }) {
                logger.log(.warn, "mqtt connection failed", ["url": url, "error": error])
            }
        }
        registry.onChange { [self] change in registryChanged(change) }
        client.start()
    }

    /// Says `offline` (retained) and disconnects.
    package func stop() {
        client.stop(final: MQTTClient.Message(topic: "\(base)/status", payload: Array("offline".utf8), qos: 1, retain: true))
    }

    // MARK: Out

    private func connected() {
        if troubled.withLock({ was in defer { was = false }; return was }) {
            logger.log(.warn, "mqtt connection recovered", ["url": url])
        } else {
            logger.log(.info, "mqtt connected", ["url": url])
        }
        client.send(.init(topic: "\(base)/status", payload: Array("online".utf8), qos: 1, retain: true))
        if let discovery {
            // Home Assistant's birth message goes to homeassistant/status whatever its
            // discovery prefix; a changed prefix often comes with a changed birth topic too.
            for topic in Set(["\(discovery.prefix)/status", "homeassistant/status"]) { client.subscribe(topic) }
        }
        if acceptsCommands {
            client.subscribe("\(base)/button/+/set")
            client.subscribe("\(base)/sheet/+/set")
        }
        publishAll()
        for slot in registry.buttonSlots() { publishState(slot) }
        for slot in registry.sheetSlots { publishSheetState(slot) }
        sweep()
        dispatcher.retryNow(MQTTEventSender.targetID)
    }

    /// Every discovery config: the instance's, each button's and each sheet's.
    private func publishAll() {
        guard let discovery else { return }
        publish([discovery.instanceConfig(version: version)], owner: "instance")
        for slot in registry.buttonSlots() { publishDiscovery(slot.locked { slot.definition }) }
        for slot in registry.sheetSlots { publishDiscovery(slot.locked { slot.definition }) }
    }

    // MARK: What the broker kept from before

    /// After connecting, what the broker retains under this instance's discovery and state
    /// topics comes back, and what no longer belongs to a button or sheet (deleted, or a
    /// gesture dropped, while buttond was away from the broker) is cleared. A filter is read
    /// until a live message shows the broker has sent what it kept (our own publications would
    /// otherwise come back: every state change twice), or for `sweepSeconds` at most.
    private func sweep() {
        let filters = sweepFilters
        let generation = sweeping.withLock { sweep in
            sweep = (sweep.generation + 1, Set(filters))
            return sweep.generation
        }
        for filter in filters { client.subscribeForNow(filter) }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.sweepSeconds) { [self] in
            let left = sweeping.withLock { sweep in
                guard sweep.generation == generation else { return Set<String>() }  // a reconnect started another
                defer { sweep.filters = [] }
                return sweep.filters
            }
            for filter in left { client.unsubscribe(filter) }
        }
    }

    /// How long after a connect the broker's retained topics are read back at most.
    static let sweepSeconds = 3.0

    private var stateFilter: String { "\(base)/button/+/state" }
    private var configFilter: String? { discovery.map { "\($0.prefix)/+/\($0.node)/+/config" } }
    private var sweepFilters: [String] { [stateFilter] + (configFilter.map { [$0] } ?? []) }

    /// The sweep's filter `topic` falls under, if any (such topics are never commands).
    private func sweepFilter(of topic: String) -> String? {
        if let discovery, let configFilter, topic.hasPrefix(discovery.prefix + "/"), topic.hasSuffix("/config"),
            topic.contains("/\(discovery.node)/")
        {
            return configFilter
        }
        return topic.hasPrefix(base + "/button/") && topic.hasSuffix("/state") ? stateFilter : nil
    }

    /// A live message under a swept filter: the broker has sent what it kept there.
    private func sweepEnded(_ filter: String) {
        if sweeping.withLock({ $0.filters.remove(filter) }) != nil { client.unsubscribe(filter) }
    }

    /// A retained message of a swept topic: cleared unless something of today's registry has it.
    private func clearIfStale(_ topic: String) {
        // Decided and cleared under the lock that publishing a new button's topics takes, so a
        // button made meanwhile is never cleared after it was announced.
        let cleared = configTopics.withLock { known in
            let stale: Bool
            if topic.hasSuffix("/config") {
                stale = !known.values.contains { $0[topic] != nil }
            } else {
                let id = topic.dropFirst(base.count + "/button/".count).dropLast("/state".count)
                stale = (try? registry.button(String(id))) == nil
            }
            if stale { client.send(.init(topic: topic, payload: [], qos: 1, retain: true)) }
            return stale
        }
        if cleared { logger.log(.info, "mqtt cleared a retained topic of a button or sheet that is gone", ["topic": topic]) }
    }

    package func committed(_ events: [ControlEvent], states: [ButtonStateChange], answers: Int) {
        for state in states {
            guard let slot = try? registry.button(state.id) else { continue }
            publishState(slot)
        }
        for event in events {
            guard case .sheet(let id) = event.source, let slot = try? registry.sheet(id) else { continue }
            publishSheetState(slot, choosing: event.type == .select ? event.data.option : nil)
        }
    }

    /// Retained `{"held", "face", "status", "color", "enabled", "armed"}`.
    /// `definition`, when given, is newer than the slot's (a change not yet in the slot).
    private func publishState(_ slot: ButtonSlot, definition newer: ButtonDefinition? = nil) {
        let (current, state) = slot.locked { (slot.definition, slot.machine.state) }
        let definition = newer ?? current
        let payload: JSONValue = [
            "held": .bool(state.held), "face": .int(Int64(state.face)), "status": definition.status.map { .string($0) } ?? .null,
            "color": definition.color.map { .string($0) } ?? .null, "enabled": .bool(definition.config.enabled),
            "armed": .bool(state.armed),
        ]
        client.send(.init(topic: "\(base)/button/\(slot.id)/state", payload: JSONWriter.encode(payload), qos: 1, retain: true))
    }

    private func publishDiscovery(_ button: ButtonDefinition, all: Bool = true) {
        guard let discovery else { return }
        publish(discovery.configs(for: button), owner: "button:" + button.id, all: all)
    }

    private func publishDiscovery(_ sheet: SheetDefinition, all: Bool = true) {
        guard let discovery else { return }
        publish(discovery.configs(for: sheet), owner: "sheet:" + sheet.id, all: all)
    }

    /// Publishes configs (retained) and clears the owner's topics that are no longer among them.
    /// Unless `all` (a connect, Home Assistant back online: it may have lost them), a config
    /// that says what it said before is not sent again: a change of look or status is the state
    /// topic's alone, and Home Assistant does not reload an entity for nothing (SPEC §9).
    /// Returns what the owner had published before.
    @discardableResult
    private func publish(_ configs: [(topic: String, payload: JSONValue)], owner: String, all: Bool = true) -> [String: [UInt8]] {
        let encoded = Dictionary(configs.map { ($0.topic, JSONWriter.encode($0.payload)) }) { a, _ in a }
        return configTopics.withLock { known in
            let before = known[owner] ?? [:]
            for topic in Set(before.keys).subtracting(encoded.keys).sorted() {
                client.send(.init(topic: topic, payload: [], qos: 1, retain: true))
            }
            known[owner] = encoded.isEmpty ? nil : encoded
            for (topic, _) in configs where all || before[topic] != encoded[topic] {
                client.send(.init(topic: topic, payload: encoded[topic] ?? [], qos: 1, retain: true))
            }
            return before
        }
    }

    private func registryChanged(_ change: Registry.RegistryChange) {
        switch change {
        case .button(let definition):
            try? registry.store.dropTombstone(owner: "button:" + definition.id)
            publishDiscovery(definition, all: false)
            if let slot = try? registry.button(definition.id) {
                configTopics.withLock { _ in publishState(slot, definition: definition) }  // ordered with the sweep
            }
        case .sheet(let definition):
            try? registry.store.dropTombstone(owner: "sheet:" + definition.id)
            publishDiscovery(definition, all: false)
            if let slot = try? registry.sheet(definition.id) { publishSheetState(slot, definition: definition) }
        case .buttonDeleted(let id, _):
            // The discovery topics first: Home Assistant stops following the state topic
            // before it is cleared (and its templates take an empty payload anyway).
            bury("button:" + id, configs: publish([], owner: "button:" + id))
            client.send(.init(topic: "\(base)/button/\(id)/state", payload: [], qos: 1, retain: true))
        case .sheetDeleted(let id, _):
            bury("sheet:" + id, configs: publish([], owner: "sheet:" + id))
            sheetChoices.withLock { $0[id] = nil }  // a sheet made again with this id starts afresh
            client.send(.init(topic: "\(base)/sheet/\(id)/state", payload: [], qos: 1, retain: true))
        }
    }

    // MARK: In

    private func received(_ message: MQTTClient.Message, commandsTo sequencer: Sequencer) {
        let topic = message.topic, payload = message.payload
        if let discovery, topic == "\(discovery.prefix)/status" || topic == "homeassistant/status" {
            if String(decoding: payload, as: UTF8.self) == "online" {
                publishAll()
                replayTombstones()
            }
            return
        }
        if let filter = sweepFilter(of: topic) {
            if !message.retain {
                sweepEnded(filter)
            } else if !payload.isEmpty {
                clearIfStale(topic)
            }
            return
        }
        guard acceptsCommands else { return }
        guard !message.retain else {
            // A command kept by the broker would run again at every reconnect.
            logger.log(.warn, "mqtt ignored a retained command (publish commands without the retain flag)", ["topic": topic])
            return
        }
        commandsSeen.withLock { $0 += 1 }
        do throws(ButtonsError) {
            switch try MQTTCommand.parse(topic: topic, payload: payload, base: base, registry: registry) {
            case .command(let command):
                sequencer.submit(command, by: "mqtt") { [self] result in
                    if case .failure(let error) = result { refused(error, topic: topic) }
                }
            case .enabled(let id, let enabled):
                looks.async { [self] in
                    do throws(ButtonsError) { _ = try sequencer.update(id, with: ["enabled": .bool(enabled)]) } catch {
                        refused(error, topic: topic)
                    }
                }
            case .look(let id, let json):
                var fields = try Fields(json)
                let slot = try registry.button(id)
                var look = slot.locked { slot.definition }
                try look.applyLook(&fields, icons: registry.icons)
                try fields.finish()  // nothing but look fields
                // A definition change waits for the sequencer to be between batches; the
                // network thread must not (the sequencer may be publishing state through it).
                looks.async { [self] in
                    do throws(ButtonsError) { _ = try sequencer.update(id, with: json) } catch { refused(error, topic: topic) }
                }
            }
        } catch {
            refused(error, topic: topic)
        }
    }

    /// A refused command, on `<base>/error`, as the HTTP API would have said it.
    private func refused(_ error: ButtonsError, topic: String) {
        guard case .object(var body) = error.body else { return }
        body["topic"] = .string(topic)
        body["status"] = .int(Int64(ErrorStatus.of(error.kind)))
        client.send(.init(topic: "\(base)/error", payload: JSONWriter.encode(.object(body)), qos: 1, retain: false))
    }
}
