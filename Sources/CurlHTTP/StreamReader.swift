import CCurl
import Platform
import ThreadSupport

/// An event stream read block by block: its transfer runs on a thread of its own and queues
/// what arrives; `next()` takes it. Dropping the reader hangs up.
public final class StreamReader: Sendable {
    public let status: Int
    /// Names in lower case.
    public let headers: [String: String]

    private let transfer: Transfer
    private let state: State
    private let timeoutSeconds: Int

    /// What the transfer's thread shares with the reader; the thread and the callbacks hold
    /// this, not the reader, so dropping the reader hangs up.
    final class State: @unchecked Sendable {  // the fields are guarded by `condition`
        let condition = Condition()
        var queue: [EventMessage] = []
        var headed = false
        var ended = false
        var failure: HTTPClient.Failure?

        /// Waits (lock held) until `done` or `seconds` pass; false when the time ran out. A
        /// client's read timeout, measured by the condition variable (`Condition.wait(seconds:until:)`).
        func wait(seconds: Double, until done: () -> Bool) -> Bool {
            condition.wait(seconds: seconds, until: done)
        }
    }

    init(_ transfer: Transfer, timeoutSeconds: Int) throws(HTTPClient.Failure) {
        let state = State()
        var parser = EventMessage.Parser()
        transfer.onHead = {
            state.condition.locked { state.headed = true }
            state.condition.broadcast()
        }
        transfer.onData = { chunk in
            let messages = parser.take(chunk)
            state.condition.locked { state.queue += messages }
            state.condition.broadcast()
        }
        startThread(name: "stream-reader") {
            var failure: HTTPClient.Failure?
            do throws(HTTPClient.Failure) { try transfer.run(timeoutSeconds: nil) } catch { failure = error }
            state.condition.locked {
                state.ended = true
                state.failure = failure
            }
            state.condition.broadcast()
        }
        let headed = state.condition.locked {
            _ = state.wait(seconds: Double(timeoutSeconds)) { state.headed || state.ended }
            return state.headed
        }
        guard headed else {
            Self.hangUp(transfer)
            throw state.condition.locked { state.failure } ?? HTTPClient.Failure(description: "no answer to the stream request")
        }
        self.transfer = transfer
        self.state = state
        self.timeoutSeconds = timeoutSeconds
        status = transfer.status
        headers = transfer.headers
    }

    deinit { close() }

    /// Hangs up: the server sees the connection close.
    public func close() { Self.hangUp(transfer) }

    private static func hangUp(_ transfer: Transfer) {
        bd_socket_slot_shutdown(transfer.socket)
    }

    /// The next block (a message or a comment); throws when the stream ends or nothing comes
    /// within the client's timeout.
    public func next() throws(HTTPClient.Failure) -> EventMessage { try next(within: Double(timeoutSeconds)) }

    /// The next block, waiting at most `seconds`.
    public func next(within seconds: Double) throws(HTTPClient.Failure) -> EventMessage {
        try state.condition.locked { () throws(HTTPClient.Failure) -> EventMessage in
            _ = state.wait(seconds: seconds) { !state.queue.isEmpty || state.ended }
            if !state.queue.isEmpty { return state.queue.removeFirst() }
            if state.ended { throw state.failure ?? HTTPClient.Failure(description: "stream ended") }
            throw HTTPClient.Failure(description: "nothing on the stream within \(seconds) s")
        }
    }

    /// The next message that is not a comment (heartbeat).
    public func nextEvent() throws(HTTPClient.Failure) -> EventMessage {
        while true {
            let message = try next()
            if !message.comment { return message }
        }
    }

    /// True when the server ends the stream within `seconds`.
    public func endsWithin(seconds: Double) -> Bool {
        state.condition.locked { state.wait(seconds: seconds) { state.ended } }
    }
}
