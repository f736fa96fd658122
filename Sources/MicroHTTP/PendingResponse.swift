import CMicroHTTPD
import Synchronization

/// An answer that another thread produces later. A handler returns `Response.pending(p)`:
/// the request's connection is suspended (its worker thread goes on serving others) and
/// `complete` resumes it with the answer, so no thread sleeps while, say, a commit is written.
public final class PendingResponse: Sendable {
    private struct State {
        var response: Response?
        var connection: CHandle?
        var suspended = false
    }

    /// Suspend and resume of one connection are ordered by this lock: `complete` never
    /// resumes a connection that is not (yet) suspended.
    private let state = Mutex(State())

    public init() {}

    /// Delivers the answer; only the first call counts.
    public func complete(_ response: Response) {
        state.withLock { state in
            guard state.response == nil else { return }
            state.response = response
            if state.suspended, let connection = state.connection {
                state.suspended = false
                SuspendResume.resume(connection.pointer)
            }
        }
    }

    /// The answer if it is there; otherwise suspends `connection` until `complete`.
    /// Called by the access handler only.
    func responseOrSuspend(_ connection: OpaquePointer) -> Response? {
        state.withLock { state in
            if let response = state.response { return response }
            if !state.suspended {
                state.connection = CHandle(pointer: connection)
                state.suspended = true
                SuspendResume.suspend(connection)
            }
            return nil
        }
    }
}
