import CMicroHTTPD
import Platform
import Synchronization

/// Every `MHD_suspend_connection` and `MHD_resume_connection` of one server, behind one lock:
/// libmicrohttpd's suspend and resume are not safe to run at the same time on different
/// threads (a resume racing a suspend elsewhere can be lost, and the connection then waits
/// until its idle timeout). A pthread mutex, not a spinning one: on two cores a spinner only
/// keeps the holder off the CPU. Held only for the suspend or resume itself (an answer is
/// rendered before), so a worker suspending a connection rarely waits for it; the answers
/// of one batch resume their connections together (`resumingTogether`), under one
/// acquisition, as the C program of `bench/baseline` does. Recursive, and always the
/// innermost lock. Each server has its own (its `StreamHub` holds it).
public final class SuspendResume: @unchecked Sendable {  // `deferred` is only touched by the thread that `batchOwner` names
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The thread whose resumes wait for the end of its `resumingTogether` (0: none).
    private let batchOwner = Atomic<UInt>(0)
    private var deferred: [OpaquePointer] = []

    public init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    func suspend(_ connection: OpaquePointer) {
        locked { MHD_suspend_connection(connection) }
    }

    /// Resumes `connection`, or, inside this thread's `resumingTogether`, at its end.
    func resume(_ connection: OpaquePointer) {
        if batchOwner.load(ordering: .relaxed) == Self.thisThread {
            deferred.append(connection)
            return
        }
        locked { MHD_resume_connection(connection) }
    }

    /// Runs `body`; the connections it resumes on this thread (the answers of one batch) are
    /// resumed when it returns, under one acquisition of the lock. While another thread is
    /// in it, `body` resumes one at a time.
    public func resumingTogether(_ body: () -> Void) {
        let me = Self.thisThread
        guard batchOwner.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged else {
            body()
            return
        }
        body()
        batchOwner.store(0, ordering: .releasing)
        guard !deferred.isEmpty else { return }
        locked {
            for connection in deferred { MHD_resume_connection(connection) }
        }
        deferred.removeAll(keepingCapacity: true)
    }

    private static var thisThread: UInt { UInt(pthread_self()) }
}
