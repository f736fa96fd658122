import ButtonEngine
import Buttons
import JSON

/// Home Assistant MQTT discovery for buttons and sheets (SPEC §9): which config topics a
/// definition has and what each holds. Pure: the bridge publishes what this answers.
struct HomeAssistantDiscovery: Sendable {
    /// `homeassistant` unless `--ha-discovery-prefix` says otherwise.
    var prefix: String
    /// buttond's own topics: `<mqtt prefix>/<instance>`.
    var base: String
    var instance: String
    /// With `--mqtt-commands`: a toggle is a switch and a sheet a select (with command
    /// topics); without, a binary sensor and a sensor, so nothing is advertised that would not act.
    var commands: Bool = false
    /// The panel, every device's `configuration_url`.
    var configurationURL: String?

    /// A value template that tolerates an empty payload (a cleared retained topic): Home
    /// Assistant logs an error for `value_json.x` when there is no JSON.
    static func template(_ member: String) -> JSONValue {
        .string("{{ value_json.\(member) if value_json is defined and value_json.\(member) is defined else '' }}")
    }

    /// Home Assistant's trigger type for each gesture a button can make.
    static let triggerTypes: [(EventType, String)] = [
        (.singleTap, "button_short_press"), (.doubleTap, "button_double_press"), (.tripleTap, "button_triple_press"),
        (.quadrupleTap, "button_quadruple_press"), (.quintupleTap, "button_quintuple_press"),
        (.longPress, "button_long_press"), (.longPressEnd, "button_long_release"),
    ]

    /// The guards' events (SPEC §4 "Guards"): a guarded button's event entity lists them too.
    static let guardEvents: [EventType] = [.armed, .disarmed, .refused]

    /// The event entity's `event_types`: the gestures, and for a button with a guard on the
    /// guards' events.
    static func eventTypes(of config: ButtonConfig) -> [EventType] {
        let gestures = gestures(maxTaps: config.maxTaps).map(\.0)
        let guarded = config.minPressMs > 0 || config.lockoutMs > 0 || config.confirmMs > 0
        return guarded ? gestures + guardEvents : gestures
    }

    /// The gestures a button makes: the tap series up to `maxTaps`, the long press and its end.
    static func gestures(maxTaps: Int) -> [(EventType, String)] {
        triggerTypes.filter { event, _ in
            !event.isNTap || (1...max(1, maxTaps)).map(EventType.nTap).contains(event)
        }
    }

    /// HA's topic and unique ids may hold letters, digits, `_` and `-`; any other character
    /// of a button's or sheet's id is written as its UTF-8 bytes in hex between underscores
    /// (`.` → `_2E_`). Those ids are lower case, so `hall.light` (`hall_2E_light`) and
    /// `hall_light` never share an id.
    static func objectID(_ id: String) -> String {
        escaped(id) { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
    }

    /// The node id of every config topic of this instance. An instance name may hold any
    /// case, so `_` and capitals are escaped too: two names never share a node.
    var node: String {
        "buttond_" + Self.escaped(instance) { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    private static func escaped(_ text: String, keeping kept: (Unicode.Scalar) -> Bool) -> String {
        var out = ""
        for c in text.unicodeScalars {
            if kept(c) {
                out.unicodeScalars.append(c)
            } else {
                for byte in String(c).utf8 { out += "_" + String(byte, radix: 16, uppercase: true) + "_" }
            }
        }
        return out
    }

    /// The instance's device: every button's and sheet's `via_device`.
    var instanceDevice: String { "buttond_" + instance }

    /// A button's device is `buttond_<instance>_<id>` (SPEC §9); a sheet's has `sheet:` before
    /// its id (no button id holds a colon).
    func device(_ identifier: String, name: String, model: String) -> JSONValue {
        var device: [String: JSONValue] = [
            "identifiers": [.string("\(instanceDevice)_\(identifier)")], "name": .string(name), "manufacturer": "buttond",
            "model": .string(model), "via_device": .string(instanceDevice),
        ]
        if let configurationURL { device["configuration_url"] = .string(configurationURL) }
        return .object(device)
    }

    var availability: JSONValue { .string("\(base)/status") }

    /// The instance as a device of its own (what `via_device` names), with one entity: a
    /// connectivity sensor on the availability topic.
    func instanceConfig(version: String) -> (topic: String, payload: JSONValue) {
        var device: [String: JSONValue] = [
            "identifiers": [.string(instanceDevice)], "name": .string("buttond \(instance)"), "manufacturer": "buttond",
            "model": "buttond server", "sw_version": .string(version),
        ]
        if let configurationURL { device["configuration_url"] = .string(configurationURL) }
        return (
            "\(prefix)/binary_sensor/\(node)/status/config",
            [
                "name": "Connection", "unique_id": .string("\(node)_status"), "device_class": "connectivity",
                "entity_category": "diagnostic", "state_topic": availability, "payload_on": "online", "payload_off": "offline",
                "device": .object(device),
            ]
        )
    }

    /// Every config (topic, payload) of a button.
    func configs(for button: ButtonDefinition) -> [(topic: String, payload: JSONValue)] {
        let object = Self.objectID(button.id)
        let device = device(button.id, name: button.label, model: button.config.kind == .toggle ? "toggle" : "push button")
        let eventTopic = "\(base)/button/\(button.id)/event"
        var configs: [(String, JSONValue)] = []
        let gestures = Self.gestures(maxTaps: button.config.maxTaps)
        for (event, type) in gestures {
            configs.append(
                (
                    "\(prefix)/device_automation/\(node)/\(object)_\(type)/config",
                    [
                        "automation_type": "trigger", "topic": .string(eventTopic), "type": .string(type), "subtype": "button_1",
                        "value_template": Self.template("type"), "payload": .string(event.rawValue), "device": device,
                    ]
                ))
        }
        configs.append(
            (
                "\(prefix)/event/\(node)/\(object)/config",
                [
                    // A toggle's main entity is its switch (named as the device); this one says what it is.
                    "name": button.config.kind == .toggle ? "Gesture" : .null, "unique_id": .string("\(node)_\(object)_event"),
                    "device_class": "button",
                    "state_topic": .string("\(base)/button/\(button.id)/gesture"),
                    "event_types": .array(Self.eventTypes(of: button.config).map { .string($0.rawValue) }),
                    "availability_topic": availability,
                    "device": device,
                ]
            ))
        if button.config.kind == .toggle { configs.append(face(of: button, object: object, device: device)) }
        configs.append(status(of: button, object: object, device: device))
        if commands { configs.append(enabled(of: button, object: object, device: device)) }
        return configs
    }

    /// The key's live `status` line as a sensor, read from the button's state topic: a status
    /// change publishes that topic only. Its object id ends in capitals, which no escaped
    /// (lower-case) id can, so it never meets a sheet's sensor of an id like `door_status`.
    private func status(of button: ButtonDefinition, object: String, device: JSONValue) -> (String, JSONValue) {
        (
            "\(prefix)/sensor/\(node)/\(object)_STATUS/config",
            [
                "name": "Status", "unique_id": .string("\(node)_\(object)_status"), "icon": "mdi:message-text-outline",
                "state_topic": .string("\(base)/button/\(button.id)/state"),
                "value_template": .string(
                    "{{ value_json.status if value_json is defined and value_json.status is defined and value_json.status is not none else '' }}"),
                "availability_topic": availability, "device": device,
            ]
        )
    }

    /// With commands, whether the key takes input (`enabled`, SPEC §9): a configuration switch
    /// whose command is a change of the definition, read from the retained state. Its object id
    /// ends in `_Enabled`: no escaped id holds a capital but the hex of `_2E_`, so a toggle named
    /// `x_enabled` never shares a topic with the switch of `x`.
    private func enabled(of button: ButtonDefinition, object: String, device: JSONValue) -> (String, JSONValue) {
        (
            "\(prefix)/switch/\(node)/\(object)_Enabled/config",
            [
                "name": "Enabled", "unique_id": .string("\(node)_\(object)_enabled"), "entity_category": "config",
                "state_topic": .string("\(base)/button/\(button.id)/state"),
                "value_template": .string(
                    "{{ ('1' if value_json.enabled else '0') if value_json is defined and value_json.enabled is defined else '' }}"),
                "state_on": "1", "state_off": "0",
                "command_topic": .string("\(base)/button/\(button.id)/set"),
                "payload_on": #"{"enabled": true}"#, "payload_off": #"{"enabled": false}"#,
                "availability_topic": availability, "device": device,
            ]
        )
    }

    /// A toggle's face: a switch that sets it, or without commands a binary sensor that shows it.
    private func face(of button: ButtonDefinition, object: String, device: JSONValue) -> (String, JSONValue) {
        let kind = commands ? "switch" : "binary_sensor"
        var config: [String: JSONValue] = [
            "name": .null, "unique_id": .string("\(node)_\(object)_\(commands ? "switch" : "face")"),
            "state_topic": .string("\(base)/button/\(button.id)/state"), "value_template": Self.template("face"),
            "availability_topic": availability, "device": device,
        ]
        if commands {
            config["state_on"] = "1"
            config["state_off"] = "0"
            config["command_topic"] = .string("\(base)/button/\(button.id)/set")
            config["payload_on"] = #"{"face": 1}"#
            config["payload_off"] = #"{"face": 0}"#
        } else {
            config["payload_on"] = "1"
            config["payload_off"] = "0"
        }
        return ("\(prefix)/\(kind)/\(node)/\(object)/config", .object(config))
    }

    /// Every config of a sheet: a `select` whose options are its labels and whose state is the
    /// last choice (its retained state topic), or without commands a sensor of that choice.
    func configs(for sheet: SheetDefinition) -> [(topic: String, payload: JSONValue)] {
        let object = Self.objectID(sheet.id)
        var config: [String: JSONValue] = [
            "name": .null, "unique_id": .string("\(node)_\(object)_\(commands ? "select" : "choice")"),
            "state_topic": .string("\(base)/sheet/\(sheet.id)/state"), "value_template": Self.template("label"),
            "availability_topic": availability, "device": device("sheet:" + sheet.id, name: sheet.label, model: "action sheet"),
        ]
        if commands {
            config["command_topic"] = .string("\(base)/sheet/\(sheet.id)/set")
            config["command_template"] = #"{"option": {{ value | tojson }}}"#
            config["options"] = .array(sheet.options.map { .string($0.label) })
        }
        return [("\(prefix)/\(commands ? "select" : "sensor")/\(node)/\(object)/config", .object(config))]
    }

    /// The HA event entity's payload for a control event, nil for one that is not a gesture or
    /// a guard's event.
    static func gesture(_ type: EventType) -> [UInt8]? {
        guard triggerTypes.contains(where: { $0.0 == type }) || guardEvents.contains(type) else { return nil }
        return JSONWriter.encode(["event_type": .string(type.rawValue)])
    }
}
