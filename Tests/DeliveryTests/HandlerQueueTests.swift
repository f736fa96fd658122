import Outbox
import Testing

@testable import Delivery

/// One handler's unfinished deliveries: oldest first whatever order they come and go in, a
/// test delivery ahead of the rest, and an emptied queue that can start over in its storage.
@Suite struct HandlerQueueTests {
    static func row(_ id: Int64, seq: Int64 = 1) -> DeliveryRow {
        DeliveryRow(
            id: id, handler: "h", nextAttemptAt: 0, createdAt: 0,
            event: DeliveryEvent(seq: seq, id: "evt_\(id)", type: .tap, source: .button("b"), t: 0, json: []))
    }

    @Test func rowsAreOldestFirstAndATestDeliveryGoesFirst() {
        var queue = HandlerQueue()
        for id in [3, 1, 2, 5] as [Int64] { queue.insert(Self.row(id)) }
        queue.insert(Self.row(9, seq: 0))
        #expect(queue.slots.map(\.id) == [9, 1, 2, 3, 5])
        queue.remove(9)
        queue.remove(3)
        #expect(queue.slots.map(\.id) == [1, 2, 5])
        #expect(queue.first?.id == 1)
        #expect(queue.count == 3)
    }

    @Test func anEmptiedQueueStartsOverAndSaysWhenItGrewLarge() {
        var small = HandlerQueue()
        for id in 1...10 as ClosedRange<Int64> { small.insert(Self.row(id)) }
        for id in 1...10 as ClosedRange<Int64> { small.remove(id) }
        #expect(small.isEmpty && !small.isLarge)
        // Used again from the start: the next row is the only one.
        small.insert(Self.row(11))
        #expect(small.slots.map(\.id) == [11])

        var backlog = HandlerQueue()
        let count = Int64(HandlerQueue.keptCapacity * 4)
        for id in 1...count { backlog.insert(Self.row(id)) }
        for id in 1...count { backlog.remove(id) }
        // The dispatcher drops such a queue once it is empty, rather than keep its memory.
        #expect(backlog.isEmpty && backlog.isLarge)
    }
}
