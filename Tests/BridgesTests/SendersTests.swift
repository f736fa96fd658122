import ButtonEngine
import Buttons
import Delivery
import MQTT
import OSC
import Testing

@testable import Bridges

/// What the bridges send: a broker's answer as a delivery's outcome, and a button's state as
/// the OSC feedback a surface's widgets follow.
@Suite struct SendersTests {
    @Test func aBrokersAnswerIsADeliveryOutcome() {
        #expect(MQTTEventSender.result(.acknowledged).outcome == .ok)
        let away = MQTTEventSender.result(.notConnected)
        #expect(away.outcome == .connect && away.output == "the broker is not connected")
        #expect(MQTTEventSender.result(.timedOut).outcome == .timeout)
        let failed = MQTTEventSender.result(.failed("refused"))
        #expect(failed.outcome == .connect && failed.output == "refused")
        #expect(MQTTEventSender.targetID == "mqtt")
    }

    @Test func aButtonsStateIsSixFeedbackMessages() throws {
        let definition = try ButtonDefinition.create(from: parse(##"{"id": "lamp", "kind": "toggle", "status": "on air", "color": "#ff8800"}"##), icons: [])
        let messages = OSCFeedback.state(of: "lamp", held: true, face: 1, armed: false, definition: definition)
        #expect(messages == [
            OSCMessage("/buttond/button/lamp/held", [.int32(1)]), OSCMessage("/buttond/button/lamp/face", [.int32(1)]),
            OSCMessage("/buttond/button/lamp/status", [.string("on air")]), OSCMessage("/buttond/button/lamp/color", [.string("#ff8800")]),
            OSCMessage("/buttond/button/lamp/armed", [.int32(0)]), OSCMessage("/buttond/button/lamp/enabled", [.int32(1)]),
        ])
        let plain = OSCFeedback.state(of: "door", held: false, face: 0, armed: false, definition: try ButtonDefinition.create(from: parse(#"{"id": "door"}"#), icons: []))
        #expect(plain.map(\.arguments) == [[.int32(0)], [.int32(0)], [.string("")], [.string("")], [.int32(0)], [.int32(1)]])
        let guarded = try ButtonDefinition.create(from: parse(#"{"id": "go", "confirmMs": 3000, "enabled": false}"#), icons: [])
        let armed = OSCFeedback.state(of: "go", held: false, face: 0, armed: true, definition: guarded)
        #expect(armed.suffix(2) == [
            OSCMessage("/buttond/button/go/armed", [.int32(1)]), OSCMessage("/buttond/button/go/enabled", [.int32(0)]),
        ])
    }

    @Test func aFeedbackURLThatIsNotOSCIsRefusedByName() throws {
        let fixture = try RegistryFixture()
        defer { fixture.close() }
        #expect(try OSCFeedback.parse(["osc.udp://127.0.0.1:9000", "osc.tcp://[::1]:3032"], registry: fixture.registry).targets.count == 2)
        do {
            _ = try OSCFeedback.parse(["http://example.com/"], registry: fixture.registry)
            Issue.record("taken")
        } catch {
            #expect(error.description.contains("'http://example.com/'"))
        }
    }
}
