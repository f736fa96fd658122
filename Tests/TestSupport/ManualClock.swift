/// Tests that move a clock name Platform's `Clock` through this module.
@_exported import struct Platform.Clock
import Platform
import Synchronization

/// A clock the test moves (swift-nio's `EmbeddedEventLoop.advanceTime`): it stands still
/// until `advance`, its wall and monotonic readings together. A part waiting for a deadline
/// on it is told by the test to look again (`Dispatcher.wake`).
public final class ManualClock: Sendable {
    private let milliseconds: Atomic<Int64>

    /// Starts at `start` epoch milliseconds (2023-11-14T22:13:20Z by default).
    public init(start: Int64 = 1_700_000_000_000) { milliseconds = Atomic(start) }

    /// The clock to hand to what is tested.
    public var clock: Clock { Clock { [self] in now } }

    /// Now, in epoch milliseconds.
    public var now: Int64 { milliseconds.load(ordering: .sequentiallyConsistent) }

    /// Moves the clock `ms` forward.
    public func advance(_ ms: Int64) { milliseconds.add(ms, ordering: .sequentiallyConsistent) }

    /// Moves the clock to `ms` (never back).
    public func advance(to ms: Int64) {
        var current = now
        while current < ms {
            let (exchanged, original) = milliseconds.compareExchange(
                expected: current, desired: ms, ordering: .sequentiallyConsistent)
            if exchanged { return }
            current = original
        }
    }
}
