import Platform

/// The server's wall clock in milliseconds since the epoch: one value handed to everything
/// that needs the time, so tests can run on a clock of their own.
package struct Clock: Sendable {
    package let now: @Sendable () -> Int64
    /// The same clock with the fraction of the millisecond, for waking timers on time.
    package let precise: @Sendable () -> Double

    package init(now: @escaping @Sendable () -> Int64, precise: (@Sendable () -> Double)? = nil) {
        self.now = now
        self.precise = precise ?? { Double(now()) }
    }

    package static let system = Clock(now: { Timestamp.now() }, precise: { Timestamp.preciseNow() })
}
