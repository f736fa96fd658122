import CMicroHTTPD
import Synchronization

/// Every `MHD_suspend_connection` and `MHD_resume_connection` of the process, behind one
/// lock: libmicrohttpd's suspend and resume are not safe to run at the same time on
/// different threads (a resume racing a suspend elsewhere can be lost, and the connection
/// then waits until its idle timeout). Always the innermost lock.
enum SuspendResume {
    private static let lock = Mutex(())

    static func suspend(_ connection: OpaquePointer) {
        lock.withLock { _ in MHD_suspend_connection(connection) }
    }

    static func resume(_ connection: OpaquePointer) {
        lock.withLock { _ in MHD_resume_connection(connection) }
    }
}
