/// The server's wall clock in milliseconds since the epoch: one value handed to everything
/// that needs the time, so tests can run on a clock of their own.
package struct Clock: Sendable {
    package let now: @Sendable () -> Int64

    package init(now: @escaping @Sendable () -> Int64) {
        self.now = now
    }

    package static let system = Clock { Timestamp.now() }
}
