import CMicroHTTPD
import Platform

/// Every `MHD_suspend_connection` and `MHD_resume_connection` of the process, and the state
/// of every pending response, behind one lock: libmicrohttpd's suspend and resume are not
/// safe to run at the same time on different threads (a resume racing a suspend elsewhere
/// can be lost, and the connection then waits until its idle timeout). A pthread mutex, not
/// a spinning one: on two cores a spinner only keeps the holder off the CPU. Held only for
/// the suspend or resume itself (an answer is rendered before), so a worker suspending a
/// connection rarely waits for it. Recursive, and always the innermost lock.
enum SuspendResume {
    nonisolated(unsafe) private static let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        return mutex
    }()

    static func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    static func suspend(_ connection: OpaquePointer) {
        locked { MHD_suspend_connection(connection) }
    }

    static func resume(_ connection: OpaquePointer) {
        locked { MHD_resume_connection(connection) }
    }
}
