/// The server's one clock: the wall time (Unix epoch milliseconds) that events, deliveries,
/// tokens and log lines are stamped with, and the monotonic time that timeouts, deadlines and
/// durations are measured on. The composition root makes it (`Clock.system`, the OS's clocks)
/// and hands it to every part that needs the time; no part reads the OS clocks itself, so a
/// test can run a part on a clock it moves (swift-nio's `EmbeddedEventLoop.advanceTime`).
///
/// A thread that waits for a deadline on this clock (the sequencer's timers, the dispatcher's
/// retries) waits on its condition for the time left and looks at the clock again when woken:
/// whoever moves a clock of its own wakes it (the sequencer at its next turn, the dispatcher
/// by `Dispatcher.wake`).
public struct Clock: Sendable {
    /// Now, in Unix epoch milliseconds.
    public let now: @Sendable () -> Int64
    /// The same clock with the fraction of the millisecond, for waking timers on time.
    public let precise: @Sendable () -> Double
    /// Seconds on the monotonic clock (for timeouts, deadlines and durations; not a date).
    public let monotonic: @Sendable () -> Double

    /// A clock of the caller's: without `precise`, the wall time's whole milliseconds; without
    /// `monotonic`, the wall time in seconds (a clock a test moves moves both).
    public init(
        now: @escaping @Sendable () -> Int64, precise: (@Sendable () -> Double)? = nil,
        monotonic: (@Sendable () -> Double)? = nil
    ) {
        self.now = now
        self.precise = precise ?? { Double(now()) }
        self.monotonic = monotonic ?? { Double(now()) / 1000 }
    }

    /// Milliseconds on the monotonic clock.
    public func monotonicMilliseconds() -> Int64 { Int64((monotonic() * 1000).rounded(.down)) }

    /// The OS's clocks: `CLOCK_REALTIME` for the wall time, `CLOCK_MONOTONIC` for the rest.
    public static let system = Clock(
        now: {
            let time = read(CLOCK_REALTIME)
            return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
        },
        precise: {
            let time = read(CLOCK_REALTIME)
            return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
        },
        monotonic: {
            let time = read(CLOCK_MONOTONIC)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        })

    private static func read(_ clock: clockid_t) -> timespec {
        var time = timespec()
        clock_gettime(clock, &time)
        return time
    }
}
