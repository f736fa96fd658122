import FoundationEssentials
import ThreadSupport
import Glibc
import Dispatch

/// Fires button timers (long press, repeat, end of a tap series, max hold) in real time
/// between inputs: one thread, one min-heap of server-clock deadlines, one condition variable.
final class TimerScheduler: @unchecked Sendable {  // `heap` and `stopped` are guarded by `condition`
    private struct Entry {
        var at: Int64
        var slot: ButtonSlot
    }

    private let condition = Condition()
    private var heap: [Entry] = []
    private var stopped = false
    private let fire: @Sendable (ButtonSlot) -> Void

    init(fire: @escaping @Sendable (ButtonSlot) -> Void) {
        self.fire = fire
    }

    func start() {
        startThread(name: "buttond.timers") { [self] in run() }
    }

    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Asks for `slot` to be visited at server time `at` (ms). Call with the slot's lock held.
    func schedule(_ slot: ButtonSlot, at: Int64) {
        if let current = slot.scheduledAt, current <= at { return }
        slot.scheduledAt = at
        condition.lock()
        heap.append(Entry(at: at, slot: slot))
        siftUp(heap.count - 1)
        if heap[0].slot === slot { condition.signal() }
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while !stopped {
            guard let first = heap.first else {
                condition.wait()
                continue
            }
            let now = Timestamp.now()
            if first.at > now {
                condition.wait(seconds: Double(first.at - now) / 1000)
                continue
            }
            let entry = popFirst()
            condition.unlock()
            fire(entry.slot)
            condition.lock()
        }
        condition.unlock()
    }

    private func popFirst() -> Entry {
        let first = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return first
    }

    private func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].at < heap[parent].at else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func siftDown(_ index: Int) {
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
