import Platform

/// A value behind a plain pthread mutex. Synchronization's `Mutex` takes a priority-
/// inheritance futex on Linux, whose contended path goes through the kernel's rt_mutex and
/// costs several times a plain futex: on the hot paths (the store's writer, the registry,
/// metrics) a contended lock must stay cheap. The one lock type of the sources
/// (`ArchitectureTests.oneLockType`): the press path's profile showed the rt_mutex; a
/// micro-benchmark on this 2-vCPU host (2 and 4 threads, 2 M contended lock/unlock each) put
/// the two within its noise, so nothing argues for the second type.
public final class Locked<Value>: @unchecked Sendable {  // `value` is only touched with `mutex` held
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held and the value to read or change.
    public func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
