import ButtonEngine
import Buttons
import JSON
import Testing

@testable import Bridges

/// What Home Assistant is told of each button and sheet (SPEC §9): the entities a user sees
/// appear, and that they act only when `--mqtt-commands` lets them.
@Suite struct HomeAssistantDiscoveryTests {
    static func discovery(commands: Bool) -> HomeAssistantDiscovery {
        HomeAssistantDiscovery(
            prefix: "homeassistant", base: "buttond/hall", instance: "hall", commands: commands, configurationURL: "http://hall:8080/")
    }

    static func button(_ json: String) throws -> ButtonDefinition { try ButtonDefinition.create(from: parse(json), icons: []) }

    /// A toggle with commands is a switch that sets its face; its gestures stay triggers.
    @Test func aToggleWithCommandsIsASwitch() throws {
        let configs = Self.discovery(commands: true).configs(for: try Self.button(#"{"id": "lamp", "label": "Lamp", "kind": "toggle"}"#))
        let byTopic = Dictionary(uniqueKeysWithValues: configs.map { ($0.topic, $0.payload) })
        let face = try #require(byTopic["homeassistant/switch/buttond_hall/lamp/config"])
        #expect(face["command_topic"] == "buttond/hall/button/lamp/set")
        #expect(face["state_topic"] == "buttond/hall/button/lamp/state")
        #expect(face["payload_on"] == #"{"face": 1}"# && face["payload_off"] == #"{"face": 0}"#)
        #expect(face["state_on"] == "1" && face["state_off"] == "0")
        #expect(face["unique_id"] == "buttond_hall_lamp_switch" && face["availability_topic"] == "buttond/hall/status")
        #expect(face["device"]?["identifiers"] == ["buttond_hall_lamp"])
        #expect(face["device"]?["via_device"] == "buttond_hall" && face["device"]?["model"] == "toggle")
        #expect(face["device"]?["configuration_url"] == "http://hall:8080/")
        let event = try #require(byTopic["homeassistant/event/buttond_hall/lamp/config"])
        #expect(event["name"] == "Gesture", "a toggle's event entity is named; its switch is the device's name")
        #expect(byTopic["homeassistant/device_automation/buttond_hall/lamp_button_short_press/config"]?["payload"] == "single-tap")
    }

    /// Without commands nothing is advertised that would not act: a binary sensor of the face.
    @Test func aToggleWithoutCommandsIsABinarySensor() throws {
        let configs = Self.discovery(commands: false).configs(for: try Self.button(#"{"id": "lamp", "kind": "toggle"}"#))
        let topics = Set(configs.map(\.topic))
        #expect(topics.contains("homeassistant/binary_sensor/buttond_hall/lamp/config"))
        #expect(!topics.contains { $0.contains("/switch/") })
        #expect(!configs.contains { $0.payload["command_topic"] != nil })
        let face = try #require(configs.first { $0.topic.contains("/binary_sensor/") }).payload
        #expect(face["payload_on"] == "1" && face["value_template"] == HomeAssistantDiscovery.template("face"))
    }

    /// A push button: one trigger per gesture it can make (taps up to `maxTaps`, the long
    /// press and its end) and an event entity with the same types; no switch.
    @Test func aPushButtonHasATriggerPerGesture() throws {
        let configs = Self.discovery(commands: true).configs(for: try Self.button(#"{"id": "door", "maxTaps": 2}"#))
        let triggers = configs.filter { $0.topic.contains("/device_automation/") }
        #expect(triggers.map { $0.payload["type"] } == ["button_short_press", "button_double_press", "button_long_press", "button_long_release"])
        #expect(triggers.allSatisfy { $0.payload["topic"] == "buttond/hall/button/door/event" && $0.payload["subtype"] == "button_1" })
        let event = try #require(configs.first { $0.topic == "homeassistant/event/buttond_hall/door/config" }).payload
        #expect(event["event_types"] == ["single-tap", "double-tap", "long-press", "long-press-end"])
        #expect(event["name"] == .null && event["device"]?["model"] == "push button")
        #expect(configs.count == 7)  // with commands: the "Status" sensor and the "Enabled" switch too
    }

    /// SPEC §9: a key's `status` is a sensor named "Status" read from the button's state topic,
    /// on every button, with or without commands; its topic cannot meet a sheet's sensor.
    @Test(arguments: [true, false]) func everyButtonHasAStatusSensorOnItsStateTopic(commands: Bool) throws {
        for json in [#"{"id": "door"}"#, #"{"id": "door", "kind": "toggle"}"#] {
            let configs = Self.discovery(commands: commands).configs(for: try Self.button(json))
            let status = try #require(configs.first { $0.topic == "homeassistant/sensor/buttond_hall/door_STATUS/config" })
            #expect(status.payload["name"] == "Status")
            #expect(status.payload["state_topic"] == "buttond/hall/button/door/state")
            #expect(status.payload["unique_id"] == "buttond_hall_door_status")
            #expect(status.payload["command_topic"] == nil)
            #expect(status.payload["device"]?["identifiers"] == ["buttond_hall_door"])
            guard case .string(let template)? = status.payload["value_template"] else { Issue.record("no template"); continue }
            #expect(template.contains("value_json is defined") && template.contains("is not none"), "an empty or null status shows as ''")
        }
        // A sheet named like a button's status sensor keeps a topic of its own.
        let sheet = try SheetDefinition.create(from: parse(#"{"id": "door_status", "options": [{"id": "a"}]}"#))
        let sheetTopics = Self.discovery(commands: false).configs(for: sheet).map(\.topic)
        #expect(!sheetTopics.contains("homeassistant/sensor/buttond_hall/door_STATUS/config"))
    }

    /// A guarded button's event entity lists the guards' events (SPEC §9); with commands
    /// `enabled` is a configuration switch whose command is `{"enabled": …}`, and without
    /// commands there is none.
    @Test func aGuardedButtonsEventsAndItsEnabledSwitch() throws {
        let go = try Self.button(#"{"id": "go", "lockoutMs": 2000}"#)
        let configs = Self.discovery(commands: true).configs(for: go)
        let event = try #require(configs.first { $0.topic == "homeassistant/event/buttond_hall/go/config" }).payload
        #expect(event["event_types"] == ["single-tap", "long-press", "long-press-end", "armed", "disarmed", "refused"])
        let plain = Self.discovery(commands: true).configs(for: try Self.button(#"{"id": "door", "maxTaps": 1}"#))
        let plainEvent = try #require(plain.first { $0.topic == "homeassistant/event/buttond_hall/door/config" }).payload
        #expect(plainEvent["event_types"] == ["single-tap", "long-press", "long-press-end"])
        let enabled = try #require(configs.first { $0.topic == "homeassistant/switch/buttond_hall/go_Enabled/config" }).payload
        #expect(enabled["name"] == "Enabled" && enabled["entity_category"] == "config")
        #expect(enabled["command_topic"] == "buttond/hall/button/go/set" && enabled["state_topic"] == "buttond/hall/button/go/state")
        #expect(enabled["payload_on"] == #"{"enabled": true}"# && enabled["payload_off"] == #"{"enabled": false}"#)
        #expect(enabled["unique_id"] == "buttond_hall_go_enabled")
        let without = Self.discovery(commands: false).configs(for: go)
        #expect(!without.contains { $0.topic.contains("_Enabled/") || $0.payload["command_topic"] != nil })
        #expect(HomeAssistantDiscovery.gesture(.armed) == Array(#"{"event_type":"armed"}"#.utf8))
        #expect(HomeAssistantDiscovery.gesture(.refused) != nil && HomeAssistantDiscovery.gesture(.touchDown) == nil)
    }

    /// A sheet with commands is a select of its labels; without, a sensor of the last choice.
    @Test func aSheetIsASelectOfItsLabels() throws {
        let sheet = try SheetDefinition.create(
            from: parse(#"{"id": "scene", "title": "Scene", "options": [{"id": "a", "label": "Bright"}, {"id": "b", "label": "Dim"}]}"#))
        let select = try #require(Self.discovery(commands: true).configs(for: sheet).first)
        #expect(select.topic == "homeassistant/select/buttond_hall/scene/config")
        #expect(select.payload["options"] == ["Bright", "Dim"])
        #expect(select.payload["command_topic"] == "buttond/hall/sheet/scene/set")
        #expect(select.payload["device"]?["identifiers"] == ["buttond_hall_sheet:scene"])
        let sensor = try #require(Self.discovery(commands: false).configs(for: sheet).first)
        #expect(sensor.topic == "homeassistant/sensor/buttond_hall/scene/config" && sensor.payload["options"] == nil)
    }

    /// Ids that HA's topics cannot hold are escaped, so two ids never share a topic.
    @Test func idsAreEscapedWithoutCollisions() {
        #expect(HomeAssistantDiscovery.objectID("hall.light") == "hall_2E_light")
        #expect(HomeAssistantDiscovery.objectID("hall_light") == "hall_light")
        #expect(HomeAssistantDiscovery.objectID("café") == "caf_C3__A9_")
        var discovery = Self.discovery(commands: false)
        discovery.instance = "Hall_1"
        #expect(discovery.node == "buttond__48_all_5F_1")
        discovery.instance = "hall-1"
        #expect(discovery.node == "buttond_hall-1")
    }

    @Test func theInstanceIsADeviceWithAConnectivitySensor() {
        let (topic, payload) = Self.discovery(commands: false).instanceConfig(version: "1.2.3")
        #expect(topic == "homeassistant/binary_sensor/buttond_hall/status/config")
        #expect(payload["state_topic"] == "buttond/hall/status" && payload["device_class"] == "connectivity")
        #expect(payload["device"]?["sw_version"] == "1.2.3" && payload["device"]?["identifiers"] == ["buttond_hall"])
    }

    @Test func aGestureIsAnEventEntityPayloadAndATouchIsNot() {
        #expect(HomeAssistantDiscovery.gesture(.doubleTap) == Array(#"{"event_type":"double-tap"}"#.utf8))
        #expect(HomeAssistantDiscovery.gesture(.touchDown) == nil)
        #expect(HomeAssistantDiscovery.gesture(.toggle) == nil)
    }
}
