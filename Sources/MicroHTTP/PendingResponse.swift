import CMicroHTTPD
import Platform
import Synchronization

/// An answer that another thread produces later. A handler returns `Response.pending(p)`:
/// the request's connection is suspended (its worker thread goes on serving others) and
/// `complete` resumes it with the answer, so no thread sleeps while, say, a commit is written.
/// Whether the answer is there and whether the connection is suspended are two bits of one
/// atomic: `complete` takes no lock unless it must resume, and the worker takes the server's
/// suspend/resume lock only to suspend.
public final class PendingResponse: @unchecked Sendable {  // `response` is written once before `answered` is set, `connection` and `suspension` before `suspended`
    private static let answered = 1
    private static let suspended = 2
    private let state = Atomic<Int>(0)
    private let claimed = Atomic<Bool>(false)
    private var response: Response?
    private var connection: OpaquePointer?
    private var suspension: SuspendResume?

    public init() {}

    /// Delivers the answer; only the first call counts.
    public func complete(_ response: Response) {
        guard !claimed.exchange(true, ordering: .relaxed) else { return }
        self.response = response
        let before = state.bitwiseOr(Self.answered, ordering: .acquiringAndReleasing).oldValue
        if before & Self.suspended != 0, let connection, let suspension { suspension.resume(connection) }
    }

    /// Blocks the calling worker thread until the answer is there (only while the server
    /// stops, when suspending is no longer allowed; the answer comes within a batch).
    func waitForResponse() -> Response {
        while state.load(ordering: .acquiring) & Self.answered == 0 { usleep(200) }
        return response!
    }

    /// The answer if it is there; otherwise suspends `connection` until `complete`.
    /// Called by the access handler only.
    func responseOrSuspend(_ connection: OpaquePointer, suspension: SuspendResume) -> Response? {
        if state.load(ordering: .acquiring) & Self.answered != 0 { return response }
        return suspension.locked { () -> Response? in
            guard state.load(ordering: .acquiring) & Self.suspended == 0 else { return nil }
            self.connection = connection
            self.suspension = suspension
            MHD_suspend_connection(connection)
            let before = state.bitwiseOr(Self.suspended, ordering: .acquiringAndReleasing).oldValue
            // Answered between the first look and the suspend: `complete` saw no suspended
            // connection, so it resumes nothing; this does, and the handler is called again.
            if before & Self.answered != 0 { MHD_resume_connection(connection) }
            return nil
        }
    }
}
