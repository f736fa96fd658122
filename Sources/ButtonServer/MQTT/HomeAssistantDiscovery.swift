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

    /// Home Assistant's trigger type for each gesture a button can make.
    static let triggerTypes: [(EventType, String)] = [
        (.singleTap, "button_short_press"), (.doubleTap, "button_double_press"), (.tripleTap, "button_triple_press"),
        (.quadrupleTap, "button_quadruple_press"), (.quintupleTap, "button_quintuple_press"),
        (.longPress, "button_long_press"), (.longPressEnd, "button_long_release"),
    ]

    /// The gestures a button makes: the tap series up to `maxTaps`, the long press and its end.
    static func gestures(maxTaps: Int) -> [(EventType, String)] {
        triggerTypes.filter { event, _ in
            !event.isNTap || (1...max(1, maxTaps)).map(EventType.nTap).contains(event)
        }
    }

    /// What HA's ids may hold: letters, digits, `_` and `-`.
    static func objectID(_ id: String) -> String {
        String(
            id.unicodeScalars.map { c in
                ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "_" || c == "-" ? Character(c) : "_"
            })
    }

    var node: String { "buttond_" + Self.objectID(instance) }

    func device(id: String, name: String, model: String) -> JSONValue {
        [
            "identifiers": [.string("\(node)_\(Self.objectID(id))")], "name": .string(name), "manufacturer": "buttond",
            "model": .string(model), "via_device": .string(node),
        ]
    }

    var availability: JSONValue { .string("\(base)/status") }

    /// Every config (topic, payload) of a button.
    func configs(for button: ButtonDefinition) -> [(topic: String, payload: JSONValue)] {
        let object = Self.objectID(button.id)
        let device = device(id: button.id, name: button.label, model: button.config.kind == .toggle ? "toggle" : "push button")
        let eventTopic = "\(base)/button/\(button.id)/event"
        var configs: [(String, JSONValue)] = []
        let gestures = Self.gestures(maxTaps: button.config.maxTaps)
        for (event, type) in gestures {
            configs.append(
                (
                    "\(prefix)/device_automation/\(node)/\(object)_\(type)/config",
                    [
                        "automation_type": "trigger", "topic": .string(eventTopic), "type": .string(type), "subtype": "button_1",
                        "value_template": "{{ value_json.type }}", "payload": .string(event.rawValue), "device": device,
                    ]
                ))
        }
        configs.append(
            (
                "\(prefix)/event/\(node)/\(object)/config",
                [
                    "name": .null, "unique_id": .string("\(node)_\(object)_event"), "device_class": "button",
                    "state_topic": .string("\(base)/button/\(button.id)/gesture"),
                    "event_types": .array(gestures.map { .string($0.0.rawValue) }), "availability_topic": availability,
                    "device": device,
                ]
            ))
        if button.config.kind == .toggle {
            configs.append(
                (
                    "\(prefix)/switch/\(node)/\(object)/config",
                    [
                        "name": .null, "unique_id": .string("\(node)_\(object)_switch"),
                        "state_topic": .string("\(base)/button/\(button.id)/state"), "value_template": "{{ value_json.face }}",
                        "state_on": "1", "state_off": "0", "command_topic": .string("\(base)/button/\(button.id)/set"),
                        "payload_on": #"{"face": 1}"#, "payload_off": #"{"face": 0}"#, "availability_topic": availability,
                        "device": device,
                    ]
                ))
        }
        return configs
    }

    /// Every config of a sheet: a `select` whose options are its labels.
    func configs(for sheet: SheetDefinition) -> [(topic: String, payload: JSONValue)] {
        let object = Self.objectID(sheet.id)
        return [
            (
                "\(prefix)/select/\(node)/\(object)/config",
                [
                    "name": .null, "unique_id": .string("\(node)_\(object)_select"),
                    "command_topic": .string("\(base)/sheet/\(sheet.id)/set"),
                    "command_template": #"{"option": {{ value | tojson }}}"#,
                    "options": .array(sheet.options.map { .string($0.label) }), "optimistic": true,
                    "availability_topic": availability,
                    "device": device(id: "sheet_" + sheet.id, name: sheet.title, model: "action sheet"),
                ]
            )
        ]
    }

    /// The HA event entity's payload for a control event, nil for one that is not a gesture.
    static func gesture(_ type: EventType) -> [UInt8]? {
        guard triggerTypes.contains(where: { $0.0 == type }) else { return nil }
        return JSONWriter.encode(["event_type": .string(type.rawValue)])
    }
}
