import CProcessShims
import Platform

/// A mutex with a condition variable (pthread), for the few places that block a thread until
/// another signals: the sequencer, the replay and checkpoint threads, the delivery workers.
/// Foundation's NSCondition would do, but importing Foundation links ICU's data into the
/// static binary.
public final class Condition: @unchecked Sendable {  // the pthread objects are the synchronization
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits (lock held) until signalled.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits (lock held) at most `seconds`; false when the time ran out.
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        var deadline = Self.deadline(in: seconds)
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }

    /// Waits (lock held) until `done` holds, at most `seconds` in all however often it is
    /// woken; false when the time ran out first. The deadline is the condition variable's own
    /// (the OS monotonic clock `pthread_cond_timedwait` measures): a bounded wait of a thread,
    /// not a time the program reads, so it needs no `Clock` (a blocking client's read timeout).
    public func wait(seconds: Double, until done: () -> Bool) -> Bool {
        var deadline = Self.deadline(in: seconds)
        while !done() {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { return done() }
        }
        return true
    }

    /// `seconds` from now on the condition variable's clock, as `pthread_cond_timedwait` takes it.
    private static func deadline(in seconds: Double) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let total = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + max(0, seconds)
        return timespec(tv_sec: Int(total), tv_nsec: Int((total - Double(Int(total))) * 1e9))
    }

    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }

    /// Runs `body` with the lock held.
    public func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// Starts a detached thread running `body`, named `name` (its first 15 bytes, as `top -H`
/// and `perf` show it), at `nice` (set by the thread itself before `body`; a raise the
/// process may not make only costs latency).
public func startThread(name: String, nice: Int32 = 0, _ body: @escaping @Sendable () -> Void) {
    final class Box {
        let body: @Sendable () -> Void
        let name: String
        let nice: Int32
        init(_ body: @escaping @Sendable () -> Void, _ name: String, _ nice: Int32) {
            self.body = body
            self.name = name
            self.nice = nice
        }
    }
    let box = Unmanaged.passRetained(Box(body, name, nice)).toOpaque()
    var thread = pthread_t()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    let result = pthread_create(&thread, &attributes, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        _ = bd_set_thread_name(String(box.name.utf8.prefix(15)) ?? "buttond")
        if box.nice != 0 { setThreadNice(box.nice) }
        box.body()
        return nil
    }, box)
    pthread_attr_destroy(&attributes)
    precondition(result == 0, "cannot start thread \(name): \(result)")
}

/// Raises (negative) or lowers the calling thread's scheduling priority; false when the
/// process may not (no CAP_SYS_NICE), which only costs latency.
@discardableResult
public func setThreadNice(_ nice: Int32) -> Bool {
    bd_set_thread_nice(nice) == 0
}

/// Gives the calling thread's core to another runnable thread once (`sched_yield`).
public func yieldThread() { sched_yield() }
