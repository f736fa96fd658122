import ButtonStore
import Testing

/// The event log: atomic commits, history queries, retention, and a seq that never goes back.
@Suite struct EventLogTests {
    @Test func eventsRoundTripByteIdentical() throws {
        try withStore { store, _ throws in
            #expect(try store.lastSeq() == 0)
            let odd = StoredEvent(
                seq: 1, id: "evt_1", type: "select", button: nil, sheet: "s1", t: 1_795_954_800_500,
                json: [0x7B, 0x00, 0xFF, 0xC3, 0x28, 0x7D])
            let empty = StoredEvent(seq: 2, id: "evt_2", type: "tap", button: "door", t: -1, json: [])
            try store.commit(events: [odd, empty], states: [], deliveries: [])
            #expect(try store.events(after: 0, limit: 10, button: nil) == [odd, empty])
            #expect(try store.lastSeq() == 2)
            #expect(try store.events(after: 0, limit: 1_000_000, button: nil).count == 2)
        }
    }

    @Test func commitWritesEventsStatesAndOutboxTogether() throws {
        try withStore { store, _ throws in
            try store.upsertButton(id: "door", config: "{}")
            let row = deliveryRow(1, eventSeq: 1, nextAttemptAt: 10)
            try store.commit(
                events: [event(1)], states: [ButtonStateChange(id: "door", face: 1, clock: nil, held: true)],
                deliveries: [row])
            #expect(try store.loadButtons().first?.held == true)
            #expect(try store.loadButtons().first?.face == 1)
            #expect(try store.delivery(id: 1) == row)
            try store.commit(events: [], states: [], deliveries: [])
            #expect(try store.lastSeq() == 1)
        }
    }

    @Test func aFailingCommitLeavesNothingBehind() throws {
        try withStore { store, _ throws in
            try store.upsertButton(id: "door", config: "{}")
            try store.commit(events: [event(1)], states: [], deliveries: [])
            let error = #expect(throws: StoreError.self) {
                try store.commit(
                    events: [event(2), event(1), event(3)],
                    states: [ButtonStateChange(id: "door", face: 1, clock: 99, held: true)],
                    deliveries: [deliveryRow(1, eventSeq: 2)])
            }
            #expect(error?.description.contains("UNIQUE") == true)
            #expect(try store.events(after: 0, limit: 10, button: nil).map(\.seq) == [1])
            #expect(try store.loadButtons().first == StoredButton(id: "door", config: "{}"))
            #expect(try store.delivery(id: 1) == nil)
            #expect(try store.lastSeq() == 1)
            // The store is still usable after a failed commit.
            try store.commit(events: [event(2)], states: [], deliveries: [deliveryRow(1, eventSeq: 2)])
            #expect(try store.lastSeq() == 2)
        }
    }

    @Test func aDuplicateOutboxIdRollsBackTheEvents() throws {
        try withStore { store, _ throws in
            #expect(throws: StoreError.self) {
                try store.commit(events: [event(1)], states: [], deliveries: [deliveryRow(1), deliveryRow(1)])
            }
            #expect(try store.events(after: 0, limit: 1_000_000, button: nil).count == 0)
            #expect(try store.pendingDeliveries().count == 0)
        }
    }

    @Test func historyFiltersByAfterLimitAndButtonOrSheet() throws {
        try withStore { store, _ throws in
            try store.commit(
                events: [
                    event(1, button: "door"), event(2, button: "lamp"), event(3, button: nil, sheet: "door"),
                    event(4, button: nil, sheet: "s1", type: "select"), event(5, button: "door"),
                    event(6, button: "door"),
                ], states: [], deliveries: [])
            #expect(try store.events(after: 0, limit: 100, button: nil).map(\.seq) == [1, 2, 3, 4, 5, 6])
            #expect(try store.events(after: 2, limit: 2, button: nil).map(\.seq) == [3, 4])
            #expect(try store.events(after: 0, limit: 100, button: "door").map(\.seq) == [1, 3, 5, 6])
            #expect(try store.events(after: 1, limit: 2, button: "door").map(\.seq) == [3, 5])
            #expect(try store.events(after: 0, limit: 100, button: "s1").map(\.type) == ["select"])
            #expect(try store.events(after: 0, limit: 100, button: "nobody").isEmpty)
            #expect(try store.events(after: 6, limit: 100, button: nil).isEmpty)
            #expect(try store.events(after: 0, limit: 0, button: nil).isEmpty)
            #expect(try store.events(after: 0, limit: -1, button: "door").isEmpty)
        }
    }

    /// The stream's replay of the newest events (no cursor): the last `limit`, oldest first,
    /// of one button or sheet when named.
    @Test func latestEventsAreTheNewestOldestFirst() throws {
        try withStore { store, _ throws in
            let events = (1...10).map { seq in
                seq % 3 == 0 ? event(Int64(seq), button: nil, sheet: "menu", type: "select") : event(Int64(seq), button: "door")
            }
            try store.commit(events: events, states: [], deliveries: [])
            #expect(try store.latestEvents(limit: 3, button: nil).map(\.seq) == [8, 9, 10])
            #expect(try store.latestEvents(limit: 3, button: "door").map(\.seq) == [7, 8, 10])
            #expect(try store.latestEvents(limit: 2, button: "menu").map(\.seq) == [6, 9])
            #expect(try store.latestEvents(limit: 100, button: nil).map(\.seq) == Array(1...10))
            #expect(try store.latestEvents(limit: 0, button: nil).isEmpty)
            #expect(try store.latestEvents(limit: 5, button: "nobody").isEmpty)
            #expect(try store.latestEvents(limit: 1, button: "door").first == events[9])
        }
    }

    @Test func trimKeepsTheNewestAndSeqNeverGoesBack() throws {
        try withStore { store, directory throws in
            try store.commit(events: (1...10).map { event($0) }, states: [], deliveries: [])
            #expect(try store.trimEvents(keep: 20) == 0)
            #expect(try store.trimEvents(keep: 3) == 7)
            #expect(try store.events(after: 0, limit: 100, button: nil).map(\.seq) == [8, 9, 10])
            #expect(try store.events(after: 0, limit: 1_000_000, button: nil).count == 3)
            #expect(try store.trimEvents(keep: 0) == 3)
            #expect(try store.events(after: 0, limit: 1_000_000, button: nil).count == 0)
            #expect(try store.lastSeq() == 10)
            store.close()
            let reopened = try ButtonStore(directory: directory, clock: .system)
            defer { reopened.close() }
            #expect(try reopened.lastSeq() == 10)
            try reopened.commit(events: [event(11)], states: [], deliveries: [])
            #expect(try reopened.lastSeq() == 11)
        }
    }

    @Test func manySmallCommitsStayFast() throws {
        try withStore { store, _ throws in
            try store.upsertButton(id: "door", config: "{}")
            let clock = ContinuousClock()
            let elapsed = try clock.measure {
                for seq in Int64(1)...2_000 {
                    try store.commit(
                        events: [event(seq)], states: [ButtonStateChange(id: "door", face: 0, clock: seq, held: false)],
                        deliveries: [])
                }
            }
            #expect(try store.lastSeq() == 2_000)
            // Generous bound: thousands a second is the target; this catches per-call fsync or re-prepare.
            #expect(elapsed < .seconds(10))
        }
    }
}
