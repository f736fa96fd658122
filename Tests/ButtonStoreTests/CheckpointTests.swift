import Testing

@testable import ButtonStore

/// The write-ahead log starts over although commits never pause: once the checkpointer's
/// passes leave only a little behind, it copies the rest with the writer held off. (Without
/// that, under steady load the log grew for as long as the load lasted: 200 MB in a minute
/// of `make bench`'s press + webhook scenario.)
@Suite struct CheckpointTests {
    @Test(.timeLimit(.minutes(3))) func theLogStartsOverWhileCommitsKeepComing() throws {
        try withStore { store, _ in
            var seq: Int64 = 0
            var pastThreshold = false
            var startedOver = false
            var largest = 0
            for _ in 0..<40_000 where !startedOver {
                let events = (0..<20).map { _ -> StoredEvent in
                    seq += 1
                    return event(seq, button: "b\(seq % 16)")
                }
                try store.commit(events: events, states: [], deliveries: [])
                let pages = try store.withConnection { $0.walPages }
                largest = max(largest, pages)
                if pages >= Checkpointer.threshold {
                    pastThreshold = true
                } else if pastThreshold && pages < Checkpointer.threshold / 4 {
                    startedOver = true
                }
            }
            #expect(pastThreshold)
            #expect(startedOver, "the log grew to \(largest) pages and never started over")
            // It started over soon after the threshold: the passes alone, which the writer keeps
            // outrunning, let it grow to 25 000-50 000 pages before a lucky moment here.
            #expect(largest < 3 * Checkpointer.threshold, "the log grew to \(largest) pages first")
            // Nothing written was lost on the way.
            #expect(try store.events(after: seq - 2, limit: 10, button: nil).map(\.seq) == [seq - 1, seq])
        }
    }
}
