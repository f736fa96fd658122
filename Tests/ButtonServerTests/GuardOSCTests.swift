import CurlHTTP
import Foundation
import OSC
import TestSupport
import Testing

/// The guards on OSC (SPEC §10): a real `oscdump` follows `/armed` and `/enabled`, and OSC
/// input for a disabled key is refused to its sender as HTTP input is.
@Suite(.serialized) struct GuardOSCTests {
    func server(feedback: [String] = []) throws -> (TestServer, Int) {
        let port = freeOSCPort()
        let server = try TestServer(dataDir: NSTemporaryDirectory() + "buttond-oscguard-\(UUID().uuidString)") { options in
            options.oscPort = port
            options.oscFeedback = feedback
        }
        return (server, port)
    }

    @Test func oscdumpSeesArmedThenDisarmedAndEnabled() throws {
        let target = freeOSCPort()
        let dump = try OSCDump(String(target))
        defer { dump.stop() }
        let (server, port) = try server(feedback: ["osc.udp://127.0.0.1:\(target)"])
        defer { server.stop() }
        _ = try server.createButton(#"{"id": "blackout", "confirmMs": 500}"#)
        try oscsend(port, "/buttond/button/blackout/press")
        #expect(eventually { dump.lines.contains("/buttond/button/blackout/armed i 1") })
        #expect(dump.lines.contains(#"/buttond/button/blackout/event s "armed""#))
        // The window closes by itself: /armed 0 after /armed 1.
        #expect(eventually { dump.lines.contains(#"/buttond/button/blackout/event s "disarmed""#) })
        let armed = dump.lines.filter { $0.hasPrefix("/buttond/button/blackout/armed ") }
        let firstOn = try #require(armed.firstIndex(of: "/buttond/button/blackout/armed i 1"))
        #expect(armed[(firstOn + 1)...].contains("/buttond/button/blackout/armed i 0"), "\(armed)")
        #expect(armed.last == "/buttond/button/blackout/armed i 0")
        // Disabling is told as /enabled 0, enabling as /enabled 1.
        #expect(dump.lines.contains("/buttond/button/blackout/enabled i 1"))
        _ = try server.client.request("PATCH", "/api/v1/buttons/blackout", json: #"{"enabled": false}"#)
        #expect(eventually { dump.lines.last { $0.hasPrefix("/buttond/button/blackout/enabled ") } == "/buttond/button/blackout/enabled i 0" })
        _ = try server.client.request("PATCH", "/api/v1/buttons/blackout", json: #"{"enabled": true}"#)
        #expect(eventually { dump.lines.last { $0.hasPrefix("/buttond/button/blackout/enabled ") } == "/buttond/button/blackout/enabled i 1" })
    }

    @Test func oscInputForADisabledKeyIsAnsweredButtonDisabled() throws {
        let (server, port) = try server()
        defer { server.stop() }
        _ = try server.createButton(#"{"id": "go", "kind": "toggle", "enabled": false}"#)
        let socket = OSCReplySocket()
        defer { socket.close() }
        for message in [
            OSCMessage("/buttond/button/go/press"), OSCMessage("/buttond/button/go/down"),
            OSCMessage("/buttond/button/go", [.float(1)]), OSCMessage("/buttond/button/go/face", [.int32(1)]),
        ] {
            socket.send(OSCCodec.encode(message), to: port)
            let reply = socket.receive()
            #expect(reply?.first?.address == "/buttond/error", "\(message.address)")
            #expect(reply?.first?.arguments.first == .string("button_disabled"), "\(message.address): \(String(describing: reply))")
        }
        #expect(try server.client.get("/api/v1/events?limit=10").json["events"] == .array([]))
        #expect(try server.client.get("/api/v1/buttons/go").json["state"]?["face"] == 0)
    }
}
