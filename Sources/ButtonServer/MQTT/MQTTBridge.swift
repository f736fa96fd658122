import ButtonEngine
import ButtonStore
import Buttons
import Delivery
import Dispatch
import Platform
import JSON
import MQTT
import ThreadSupport

/// buttond on an MQTT broker (SPEC §9): events out through the delivery log (handler
/// `mqtt`), retained state and availability, Home Assistant discovery that follows the
/// registry, and, with `--mqtt-commands`, commands in through the sequencer.
final class MQTTBridge: CommitObserver {
    let client: MQTTClient
    /// `<prefix>/<instance>`.
    let base: String
    let instance: String
    let url: String
    let discovery: HomeAssistantDiscovery?
    let acceptsCommands: Bool
    let registry: Registry
    let dispatcher: Dispatcher
    let logger: Logger
    /// Set by `start`; commands wait for it.
    private let sequencer = Locked<Sequencer?>(nil)
    /// The discovery config topics published for each button (`button:<id>`) and sheet
    /// (`sheet:<id>`), so a change or a delete can clear what is no longer there.
    private let configTopics = Locked<[String: Set<String>]>([:])
    private let commandsSeen = Locked(0)
    /// Look changes from commands, one at a time, off the network thread.
    private let looks = DispatchQueue(label: "buttond.mqtt.looks")

    init(options: ServeOptions, registry: Registry, dispatcher: Dispatcher, logger: Logger) throws(MQTTError) {
        let instance = options.instance ?? Self.hostName()
        var client = try MQTTClient.Options.parse(url: options.mqttURL ?? "", clientID: "buttond-" + instance)
        if let password = options.mqttPassword { client.password = password }
        if let ca = options.mqttCA { client.caFile = ca }
        base = "\(options.mqttPrefix)/\(instance)"
        client.will = MQTTClient.Message(topic: "\(base)/status", payload: Array("offline".utf8), qos: 1, retain: true)
        self.client = MQTTClient(options: client)
        self.instance = instance
        url = MQTTBridge.redacted(options.mqttURL ?? "")
        discovery = options.haDiscovery ? HomeAssistantDiscovery(prefix: options.haDiscoveryPrefix, base: base, instance: instance) : nil
        acceptsCommands = options.mqttCommands
        self.registry = registry
        self.dispatcher = dispatcher
        self.logger = logger
    }

    /// Connects (in the background; it keeps trying) and starts following the registry.
    func start(sequencer: Sequencer, retryScale: Double) {
        self.sequencer.withLock { $0 = sequencer }
        dispatcher.setSender(
            MQTTEventSender(client: client, base: base), id: MQTTEventSender.handlerID,
            policy: DeliveryPolicy(maxAttempts: .max, fixedRetryMs: Int64(1000 * retryScale)))
        client.onConnect { [self] in connected() }
        client.onMessage { [self] topic, payload in received(topic: topic, payload: payload) }
        registry.onChange { [self] change in registryChanged(change) }
        client.start()
    }

    /// Says `offline` (retained) and disconnects.
    func stop() {
        client.stop(final: MQTTClient.Message(topic: "\(base)/status", payload: Array("offline".utf8), qos: 1, retain: true))
    }

    // MARK: Out

    private func connected() {
        logger.log(.info, "mqtt connected", ["url": url])
        client.send(.init(topic: "\(base)/status", payload: Array("online".utf8), qos: 1, retain: true))
        if let discovery { client.subscribe("\(discovery.prefix)/status") }
        if acceptsCommands {
            client.subscribe("\(base)/button/+/set")
            client.subscribe("\(base)/sheet/+/set")
        }
        for slot in registry.buttonSlots() {
            publishState(slot)
            publishDiscovery(slot.locked { slot.definition })
        }
        for slot in registry.sheetSlots { publishDiscovery(slot.locked { slot.definition }) }
        dispatcher.retryNow(MQTTEventSender.handlerID)
    }

    func committed(_ events: [ControlEvent], states: [ButtonStateChange], answers: Int) {
        for state in states {
            guard let slot = try? registry.button(state.id) else { continue }
            publishState(slot)
        }
    }

    /// Retained `{"held", "face", "status", "color"}`.
    /// `definition`, when given, is newer than the slot's (a change not yet in the slot).
    private func publishState(_ slot: ButtonSlot, definition newer: ButtonDefinition? = nil) {
        let (current, state) = slot.locked { (slot.definition, slot.machine.state) }
        let definition = newer ?? current
        let payload: JSONValue = [
            "held": .bool(state.held), "face": .int(Int64(state.face)), "status": definition.status.map { .string($0) } ?? .null,
            "color": definition.color.map { .string($0) } ?? .null,
        ]
        client.send(.init(topic: "\(base)/button/\(slot.id)/state", payload: JSONWriter.encode(payload), qos: 1, retain: true))
    }

    private func publishDiscovery(_ button: ButtonDefinition) {
        guard let discovery else { return }
        publish(discovery.configs(for: button), owner: "button:" + button.id)
    }

    private func publishDiscovery(_ sheet: SheetDefinition) {
        guard let discovery else { return }
        publish(discovery.configs(for: sheet), owner: "sheet:" + sheet.id)
    }

    /// Publishes configs (retained) and clears the owner's topics that are no longer among them.
    private func publish(_ configs: [(topic: String, payload: JSONValue)], owner: String) {
        let topics = Set(configs.map(\.topic))
        let stale = configTopics.withLock { known in
            defer { known[owner] = topics.isEmpty ? nil : topics }
            return (known[owner] ?? []).subtracting(topics)
        }
        for topic in stale.sorted() { client.send(.init(topic: topic, payload: [], qos: 1, retain: true)) }
        for (topic, payload) in configs { client.send(.init(topic: topic, payload: JSONWriter.encode(payload), qos: 1, retain: true)) }
    }

    private func registryChanged(_ change: Registry.RegistryChange) {
        switch change {
        case .button(let definition):
            publishDiscovery(definition)
            if let slot = try? registry.button(definition.id) { publishState(slot, definition: definition) }
        case .sheet(let definition): publishDiscovery(definition)
        case .buttonDeleted(let id):
            publish([], owner: "button:" + id)
            client.send(.init(topic: "\(base)/button/\(id)/state", payload: [], qos: 1, retain: true))
        case .sheetDeleted(let id): publish([], owner: "sheet:" + id)
        }
    }

    // MARK: In

    private func received(topic: String, payload: [UInt8]) {
        if let discovery, topic == "\(discovery.prefix)/status" {
            if String(decoding: payload, as: UTF8.self) == "online" {
                for slot in registry.buttonSlots() { publishDiscovery(slot.locked { slot.definition }) }
                for slot in registry.sheetSlots { publishDiscovery(slot.locked { slot.definition }) }
            }
            return
        }
        guard acceptsCommands, let sequencer = sequencer.withLock({ $0 }) else { return }
        commandsSeen.withLock { $0 += 1 }
        do throws(ButtonsError) {
            switch try MQTTCommand.parse(topic: topic, payload: payload, base: base, registry: registry) {
            case .command(let command):
                sequencer.submit(command) { [self] result in
                    if case .failure(let error) = result { refused(error, topic: topic) }
                }
            case .look(let id, let json):
                var fields = try Fields(json)
                let slot = try registry.button(id)
                var look = slot.locked { slot.definition }
                try look.applyLook(&fields)
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
        guard case .object(var body) = error.httpError.body else { return }
        body["topic"] = .string(topic)
        body["status"] = .int(Int64(error.httpError.status))
        client.send(.init(topic: "\(base)/error", payload: JSONWriter.encode(.object(body)), qos: 1, retain: false))
    }

    // MARK: Reporting

    /// `GET /api/v1/mqtt`.
    var status: JSONValue {
        let counters = client.counters
        var object: [String: JSONValue] = [
            "enabled": true, "url": .string(url), "instance": .string(instance), "topics": .string(base),
            "connection": .string(client.connection.rawValue), "commands": .bool(acceptsCommands),
            "discovery": .bool(discovery != nil), "published": .int(Int64(counters.published)),
            "acknowledged": .int(Int64(counters.acknowledged)), "reconnects": .int(Int64(counters.reconnects)),
            "received": .int(Int64(counters.received)), "pending": .int(Int64(dispatcher.pending(MQTTEventSender.handlerID))),
        ]
        if let error = client.lastError { object["lastError"] = .string(error) }
        return .object(object)
    }

    var metrics: MQTTMetrics {
        let counters = client.counters
        return MQTTMetrics(
            connected: client.connection == .connected, published: counters.published, acknowledged: counters.acknowledged,
            reconnects: counters.reconnects)
    }

    /// The URL without its password.
    static func redacted(_ url: String) -> String {
        let parts = url.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let slashes = parts[0].lastIndex(of: "/"), let colon = parts[0][slashes...].firstIndex(of: ":")
        else { return url }
        return String(parts[0][..<colon]) + ":***@" + parts[1]
    }

    static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count) == 0 else { return "buttond" }
        let bytes = name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        let host = String(decoding: bytes, as: UTF8.self).split(separator: ".").first.map(String.init) ?? "buttond"
        return ServeOptions.isTopicLevel(host) ? host : "buttond"
    }
}
