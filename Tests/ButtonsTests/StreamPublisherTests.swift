import ButtonEngine
import Buttons
import Foundation
import Synchronization
import Testing

/// The publisher's replay against a client that stops reading and then hangs up.
@Suite("Stream publisher (domain, no HTTP)")
struct StreamPublisherTests {
    /// A client that never drains: what it was sent stays pending, until it hangs up.
    final class StalledClient: EventSink {
        struct State {
            var received = 0
            var open = true
            var drained: (@Sendable () -> Void)?
        }
        let state = Mutex(State())

        func send(_ bytes: [UInt8]) -> Bool {
            state.withLock { state in
                state.received += bytes.count
                return state.open
            }
        }
        func finish() { state.withLock { $0.open = false } }
        var isOpen: Bool { state.withLock { $0.open } }
        var pendingCount: Int { state.withLock { $0.received } }
        func onDrain(_ handler: @escaping @Sendable () -> Void) { state.withLock { $0.drained = handler } }

        /// The connection closed: an `EventStream` calls its drain handler then.
        func hangUp() {
            let drained = state.withLock { state in
                state.open = false
                return state.drained
            }
            drained?()
        }
    }

    @Test func aReplayWaitingForItsClientEndsWhenTheClientHangsUp() throws {
        let f = try SequencerTests.Fixture(buttons: [#"{"id": "a", "maxTaps": 1}"#])
        defer { f.stop() }
        // Enough history that the client's backlog passes the replay's low-water mark.
        try press("a", times: 1500, in: f)
        let publisher = StreamPublisher(log: f.log, publishedThrough: f.log.lastSeq)
        publisher.start()
        defer { publisher.stop() }
        let client = StalledClient()
        publisher.subscribe(client, after: 0, source: nil)
        #expect(wait { client.pendingCount >= StreamPublisher.lowWater })
        let sent = client.pendingCount
        // A stalled client is sent no more than the replay's low-water mark and a page, and
        // stays attached: it may yet read.
        Thread.sleep(forTimeInterval: 0.2)
        #expect(client.pendingCount == sent)
        #expect(publisher.subscriberCount == 1)

        client.hangUp()
        #expect(wait { publisher.subscriberCount == 0 })
        #expect(client.pendingCount == sent)
    }

    /// A client that reads everything at once, keeping the ids it was sent.
    final class EagerClient: EventSink {
        let ids = Mutex<[Int64]>([])

        func send(_ bytes: [UInt8]) -> Bool {
            let found = String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
                line.hasPrefix("id: ") ? Int64(line.dropFirst(4)) : nil
            }
            ids.withLock { $0 += found }
            return true
        }
        func finish() {}
        var isOpen: Bool { true }
        var pendingCount: Int { 0 }
        func onDrain(_ handler: @escaping @Sendable () -> Void) {}
    }

    @Test func aReplayUnderContinuousInputReachesTheLiveEventsWithNoneMissing() throws {
        let f = try SequencerTests.Fixture(buttons: [#"{"id": "a", "maxTaps": 1}"#, #"{"id": "b", "maxTaps": 1}"#])
        defer { f.stop() }
        // Several pages of history: the replay rests after each while input is committed.
        try press("a", times: 1000, in: f)
        let history = f.log.lastSeq
        #expect(history > Int64(4 * StreamPublisher.pageSize))
        f.publisher.start()
        defer { f.publisher.stop() }
        let pressing = Atomic<Bool>(true)
        let inputDone = DispatchSemaphore(value: 0)
        let input = Thread { [f] in
            while pressing.load(ordering: .relaxed) {
                _ = f.submit([.press(button: "b", down: Input(.down), holdMs: 0)])
            }
            inputDone.signal()
        }
        let client = EagerClient()
        input.start()
        f.publisher.subscribe(client, after: 0, source: nil)
        // Past the history, into events committed after the replay began.
        #expect(wait { (client.ids.withLock { $0.last } ?? 0) > history + 20 })
        pressing.store(false, ordering: .relaxed)
        inputDone.wait()  // before the sequencer stops
        let ids = client.ids.withLock { $0 }
        #expect(ids.first == 1)
        #expect(ids == Array(1...(ids.last ?? 0)), "every event once, in order")
    }

    /// History: `times` presses of `button`, 10 ms apart, a hundred a batch.
    private func press(_ button: String, times: Int, in f: SequencerTests.Fixture) throws {
        let presses = (0..<times).map { k in
            Command.press(button: button, down: Input(.down, t: Int64(1000 + k * 10)), holdMs: 5)
        }
        for chunk in stride(from: 0, to: presses.count, by: 100) {
            for result in f.submit(Array(presses[chunk..<min(chunk + 100, presses.count)])) { _ = try result.get() }
        }
    }

    private func wait(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }
}
