import CMicroHTTPD
import Platform

/// An answer that another thread produces later. A handler returns `Response.pending(p)`:
/// the request's connection is suspended (its worker thread goes on serving others) and
/// `complete` resumes it with the answer, so no thread sleeps while, say, a commit is written.
public final class PendingResponse: @unchecked Sendable {  // every var is guarded by SuspendResume's lock
    private var response: Response?
    private var connection: OpaquePointer?
    private var suspended = false

    public init() {}

    /// Delivers the answer; only the first call counts.
    public func complete(_ response: Response) {
        SuspendResume.locked {
            guard self.response == nil else { return }
            self.response = response
            if suspended, let connection {
                suspended = false
                MHD_resume_connection(connection)
            }
        }
    }

    /// Blocks the calling worker thread until the answer is there (only while the server
    /// stops, when suspending is no longer allowed; the answer comes within a batch).
    func waitForResponse() -> Response {
        while true {
            if let response = SuspendResume.locked({ response }) { return response }
            usleep(200)
        }
    }

    /// The answer if it is there; otherwise suspends `connection` until `complete`.
    /// Called by the access handler only.
    func responseOrSuspend(_ connection: OpaquePointer) -> Response? {
        SuspendResume.locked {
            if let response { return response }
            if !suspended {
                self.connection = connection
                suspended = true
                MHD_suspend_connection(connection)
            }
            return nil
        }
    }
}
