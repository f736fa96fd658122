import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Bridges

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
        #expect(eventually(5) { entered.isSet })
        #expect(gate.state.inFlight == 3)
    }

    @Test func closingLetsAWaitingReaderGo() {
        let gate = OSCInFlight(limit: 1)
        gate.enter()
        let entered = Self.enterOnAnotherThread(gate)
        gate.close()
        #expect(eventually(5) { entered.isSet })
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
}
