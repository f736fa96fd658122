import Outbox
import ButtonStore

/// An open event stream, as the publisher needs it (MicroHTTP's `EventStream` in the server).
package protocol EventSink: AnyObject, Sendable {
    /// Queues bytes for the client; false once the stream has ended.
    @discardableResult func send(_ bytes: [UInt8]) -> Bool
    /// Ends the stream once what is queued has been sent.
    func finish()
    var isOpen: Bool { get }
    /// Bytes queued and not yet taken by the client.
    var pendingCount: Int { get }
    /// Calls `handler` each time the client has taken everything queued, and when the stream
    /// closes.
    func onDrain(_ handler: @escaping @Sendable () -> Void)
}

/// Where committed deliveries go (the delivery dispatcher in the server).
package protocol DeliveryQueue: Sendable {
    /// Deliveries not finished yet: the input path refuses new ones past its limit.
    var depth: Int { get }
    /// Deliveries just committed to the log.
    func added(_ rows: [DeliveryRow])
}

/// Which deliveries an event makes (the handler registry in the server). Asked with a slice
/// of the batch's events: a command's own, not copied out.
package protocol DeliveryRules: Sendable {
    func deliveries(for events: ArraySlice<ControlEvent>, now: Int64) -> [DeliveryRow]
}

/// Told of every committed batch (the server's metrics).
package protocol CommitObserver: Sendable {
    /// `events` were committed in one transaction, with the buttons' new `states`,
    /// answering `answers` requests.
    func committed(_ events: [ControlEvent], states: [ButtonStateChange], answers: Int)
}

/// Tells each of several observers of every committed batch.
package struct CommitObservers: CommitObserver {
    let observers: [any CommitObserver]

    package init(_ observers: [any CommitObserver]) { self.observers = observers }

    package func committed(_ events: [ControlEvent], states: [ButtonStateChange], answers: Int) {
        for observer in observers { observer.committed(events, states: states, answers: answers) }
    }
}

/// Answers the callers of one batch together (the HTTP server resumes their connections
/// under one acquisition of its suspend/resume lock).
package protocol AnswerGrouping: Sendable {
    func together(_ answers: () -> Void)
}

/// Each answer on its own (the bridges' and the tests' sequencers).
package struct AnswersOneByOne: AnswerGrouping {
    package init() {}
    package func together(_ answers: () -> Void) { answers() }
}
