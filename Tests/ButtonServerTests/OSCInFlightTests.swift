import Foundation
import OSC
import Synchronization
import TestSupport
import Testing

@testable import ButtonServer

/// The bound on OSC messages waiting for the sequencer (a UDP flood must not queue seconds of
/// work ahead of HTTP input: before it, 8 s of presses as fast as loopback takes them left
/// 26 000 queued and an HTTP press answered after 5 s).
@Suite struct OSCInFlightTests {
    @Test func theReaderWaitsAtTheLimitUntilAnAnswer() {
        let gate = OSCInFlight(limit: 3)
        for _ in 0..<3 { gate.enter() }
        let entered = Self.enterOnAnotherThread(gate)
        #expect(gate.state.inFlight == 3 && gate.state.waits == 1)
        gate.leave()
        #expect(waitUntil(5) { entered.isSet })
        #expect(gate.state.inFlight == 3)
    }

    @Test func closingLetsAWaitingReaderGo() {
        let gate = OSCInFlight(limit: 1)
        gate.enter()
        let entered = Self.enterOnAnotherThread(gate)
        gate.close()
        #expect(waitUntil(5) { entered.isSet })
    }

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
        #expect(waitUntil(30) {
            text = (try? server.client.get("/metrics").text) ?? ""
            guard let read = Self.value(text, "buttond_osc_messages_in_total"), read > 0 else { return false }
            return Self.value(text, #"buttond_control_events_total{type="touch-down"}"#) == read
        })
        #expect(Self.value(text, "buttond_osc_refused_total") == 0)
        #expect(Self.value(text, "buttond_osc_reader_waits_total") != nil)
    }

    /// Calls `enter` on a thread of its own; the flag is set once it returned (checked: not within 0.2 s).
    static func enterOnAnotherThread(_ gate: OSCInFlight) -> Flag {
        let entered = Flag()
        Thread.detachNewThread {
            gate.enter()
            entered.set()
        }
        usleep(200_000)
        #expect(!entered.isSet)
        return entered
    }

    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .sequentiallyConsistent) }
        var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
    }

    static func value(_ metrics: String, _ name: String) -> Int? {
        for line in metrics.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Int(line.dropFirst(name.count + 1))
        }
        return nil
    }
}
