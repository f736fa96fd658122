import Foundation
import OSC
import TestSupport
import Testing

import Bridges
@testable import ButtonServer

/// The bound on OSC messages waiting for the sequencer, live (its unit tests are in
/// BridgesTests): a UDP flood must not queue seconds of work ahead of HTTP input.
@Suite struct OSCFloodTests {
    /// A flood well past the bound from one socket: every press that was read is stored (none
    /// refused), the server answers HTTP meanwhile, and the waits are counted.
    @Test func aFloodPastTheBoundIsStoredAndCounted() throws {
        let port = freeOSCPort()
        let server = try TestServer(dataDir: NSTemporaryDirectory() + "buttond-oscflood-\(UUID().uuidString)") { options in
            options.oscPort = port
        }
        defer { server.stop() }
        _ = try server.createButton(#"{"id": "door"}"#)
        let socket = OSCReplySocket()
        defer { socket.close() }
        let press = OSCCodec.encode(OSCMessage("/buttond/button/door/press"))
        for _ in 0..<(4 * OSCBridge.maxInFlight) { socket.send(press, to: port) }
        #expect(try server.client.get("/healthz").status == 200)
        var text = ""
        #expect(eventually(30) {
            text = (try? server.client.get("/metrics").text) ?? ""
            guard let read = Self.value(text, "buttond_osc_messages_in_total"), read > 0 else { return false }
            return Self.value(text, #"buttond_control_events_total{type="touch-down"}"#) == read
        })
        #expect(Self.value(text, "buttond_osc_refused_total") == 0)
        #expect(Self.value(text, "buttond_osc_reader_waits_total") != nil)
    }

    static func value(_ metrics: String, _ name: String) -> Int? {
        for line in metrics.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Int(line.dropFirst(name.count + 1))
        }
        return nil
    }
}
