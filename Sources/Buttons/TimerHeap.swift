/// Something with a timer in a `TimerHeap`: the deadline the heap holds for it.
package protocol TimedSlot: AnyObject {
    var scheduledAt: Int64? { get set }
}

/// Real-time deadlines (server clock, ms) of button timers (long press, repeat, end of a
/// tap series, max hold) or of sheets' open timeouts. A min-heap in `SequencerState`, read and
/// changed on the sequencer's thread only. An entry whose slot was re-armed since is stale and
/// fires nothing.
package struct TimerHeap<Slot: TimedSlot> {
    package struct Entry {
        var at: Int64
        var slot: Slot
    }

    private var heap: [Entry] = []

    /// The earliest deadline, if any.
    package var next: Int64? { heap.first?.at }

    /// Asks for `slot` to be visited at `at` unless it already will be by then.
    package init() {}

    package mutating func schedule(_ slot: Slot, at: Int64) {
        if let current = slot.scheduledAt, current <= at { return }
        slot.scheduledAt = at
        heap.append(Entry(at: at, slot: slot))
        siftUp(heap.count - 1)
    }

    /// Removes and returns every slot due at or before `now`, earliest first (each once).
    package mutating func popDue(now: Int64) -> [Slot] {
        var due: [Slot] = []
        while let first = heap.first, first.at <= now {
            let entry = popFirst()
            guard entry.slot.scheduledAt == entry.at else { continue }  // re-armed earlier: stale
            entry.slot.scheduledAt = nil
            due.append(entry.slot)
        }
        return due
    }

    private mutating func popFirst() -> Entry {
        let first = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return first
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].at < heap[parent].at else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].at < heap[smallest].at { smallest = left }
            if right < heap.count && heap[right].at < heap[smallest].at { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
