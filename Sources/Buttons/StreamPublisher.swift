import ButtonStore
import JSON
import Platform
import ThreadSupport

/// Sends committed events to the open event streams, in `seq` order, and replays history to
/// streams that ask for it (`?after=` / `Last-Event-ID`).
///
/// A replay reads the log page by page on a reader connection, on a thread of its own, and
/// sends the next page only when the client has taken the last: however long the history,
/// neither the sequencer nor other clients wait for it, and the stream never overflows; while
/// input is being committed, it rests a moment after each full page (`pauseMicroseconds`).
/// Each subscriber remembers the last seq it was sent, so the switch from replay to live
/// events loses nothing and sends nothing twice.
package final class StreamPublisher: @unchecked Sendable {  // all mutable state is guarded by `condition`
    fileprivate struct Subscriber {
        let stream: any EventSink
        let source: String?
        /// Which sources (by name) it may be sent, besides `source` (a token limited to groups).
        let admits: (@Sendable (String) -> Bool)?
        /// Which groups it sees, for registry messages (a token limited to groups); nil: all.
        let seesGroup: (@Sendable (String?) -> Bool)?
        /// Every event up to this seq (of this source) has been sent, or was not wanted.
        var sentThrough: Int64
        var replaying: Bool
    }

    /// Events per page of a replay, and the backlog a replay may leave for its client.
    package static let pageSize = 500
    package static let lowWater = 256 * 1024
    /// How long the replay rests after a full page while input is being committed: a long
    /// history then goes out at up to 125 000 events a second beside the presses, not as fast
    /// as the CPU they leave allows (scenario 8: a client replaying 120 000 events in a loop
    /// took half a core, and the presses' p99 went from ~9 to ~14 ms). With no input, and
    /// for a short catch-up, it does not rest.
    static let pauseMicroseconds: UInt32 = 4000

    private let condition = Condition()
    private let log: EventLog
    private var subscribers: [ObjectIdentifier: Subscriber] = [:]
    /// The last seq handed to `publish` (events up to it are committed).
    private var publishedThrough: Int64
    /// Replaying streams whose client is ready for more.
    private var ready: [ObjectIdentifier] = []
    private var stopped = false

    package init(log: EventLog, publishedThrough: Int64) {
        self.log = log
        self.publishedThrough = publishedThrough
    }

    package func start() {
        // Below the HTTP workers: a long replay takes what the presses leave of the CPU, not a
        // share of it (a press waits behind no page of history).
        startThread(name: "buttond.replay", nice: 10) { [self] in pump() }
    }

    package func stop() {
        condition.locked {
            stopped = true
            condition.broadcast()
        }
    }

    private static func message(_ json: [UInt8], seq: Int64) -> [UInt8] {
        var bytes = Array("id: \(seq)\ndata: ".utf8)
        bytes.append(contentsOf: json)
        bytes.append(contentsOf: [0x0A, 0x0A])
        return bytes
    }

    /// Attaches a stream: live from now on, or first the history after `after`.
    package func subscribe(
        _ stream: any EventSink, after: Int64?, source: String?, admits: (@Sendable (String) -> Bool)? = nil,
        seesGroup: (@Sendable (String?) -> Bool)? = nil
    ) {
        let id = ObjectIdentifier(stream)
        condition.locked {
            // A cursor past the newest event (from an older data directory, say) replays
            // nothing and takes every event from now on.
            subscribers[id] = Subscriber(
                stream: stream, source: source, admits: admits, seesGroup: seesGroup,
                sentThrough: min(after ?? publishedThrough, publishedThrough), replaying: after != nil)
            if after != nil { markReady(id) }
        }
        guard after != nil else { return }
        stream.onDrain { [weak self] in
            guard let self else { return }
            condition.locked { if subscribers[id]?.replaying == true { markReady(id) } }
        }
    }

    /// Lock held.
    private func markReady(_ id: ObjectIdentifier) {
        if !ready.contains(id) {
            ready.append(id)
            condition.signal()
        }
    }

    /// Streams attached, live or replaying.
    package var subscriberCount: Int { condition.locked { subscribers.count } }

    /// Sends a committed batch to every live stream that wants it. Called by the sequencer
    /// only, in `seq` order.
    package func publish(_ events: [ControlEvent]) {
        guard let last = events.last else { return }
        condition.locked {
            publishedThrough = last.seq
            guard !subscribers.isEmpty else { return }
            var everything: [UInt8]?
            var gone: [ObjectIdentifier] = []
            for (id, subscriber) in subscribers where !subscriber.replaying {
                var bytes: [UInt8] = []
                if subscriber.source == nil && subscriber.admits == nil && events.first!.seq > subscriber.sentThrough {
                    if everything == nil {
                        everything = events.flatMap { Self.message($0.json, seq: $0.seq) }
                    }
                    bytes = everything!
                } else {
                    for event in events where event.seq > subscriber.sentThrough && subscriber.wants(event.source.id) {
                        bytes += Self.message(event.json, seq: event.seq)
                    }
                }
                subscribers[id]!.sentThrough = last.seq
                if !bytes.isEmpty && !subscriber.stream.send(bytes) { gone.append(id) }
            }
            for id in gone { subscribers[id] = nil }
        }
    }

    /// Sends a named event that is not a control event (no `id:`, not in the history) to the
    /// streams following `source` (every stream not filtered to another): `event: registry`.
    /// A stream limited to groups gets it when `scoped` says so, given the test of its groups
    /// (the groups a change concerns are known to the caller: a deleted button's is no longer
    /// in the registry); one that is not limited, when `everyone`.
    package func announce(
        _ name: String, data: [UInt8], source: String, everyone: Bool = true,
        scoped: (_ sees: (String?) -> Bool) -> Bool
    ) {
        var bytes = Array("event: \(name)\ndata: ".utf8)
        bytes.append(contentsOf: data)
        bytes.append(contentsOf: [0x0A, 0x0A])
        condition.locked {
            for (_, subscriber) in subscribers where subscriber.source == nil || subscriber.source == source {
                let sent = subscriber.seesGroup.map { scoped($0) } ?? everyone
                if sent { subscriber.stream.send(bytes) }
            }
        }
    }

    /// The replay thread: one page at a time for each stream that is ready for more.
    private func pump() {
        condition.lock()
        while !stopped {
            guard !ready.isEmpty else {
                condition.wait()
                continue
            }
            let id = ready.removeFirst()
            guard let subscriber = subscribers[id], subscriber.replaying else { continue }
            let through = publishedThrough
            condition.unlock()
            // A replay waiting for its client to drain is woken by its hang-up too (`onDrain`),
            // so `publish` need not ask every replaying stream whether it is open: the
            // sequencer would wait on the streams' lock while this thread held it.
            guard subscriber.stream.isOpen else {
                condition.lock()
                subscribers[id] = nil
                continue
            }
            let page = try? log.history(after: subscriber.sentThrough, limit: Self.pageSize, source: subscriber.source)
            var bytes: [UInt8] = []
            for event in page ?? [] where subscriber.wants(event.button ?? event.sheet ?? "") {
                bytes += Self.message(event.json, seq: event.seq)
            }
            let open = bytes.isEmpty ? subscriber.stream.isOpen : subscriber.stream.send(bytes)
            let backlog = subscriber.stream.pendingCount
            condition.lock()
            guard open, subscribers[id] != nil else {
                subscribers[id] = nil
                continue
            }
            guard let page else {
                // The log could not be read: end the stream; the client reconnects from its
                // Last-Event-ID.
                subscriber.stream.finish()
                subscribers[id] = nil
                continue
            }
            var sentThrough = page.last?.seq ?? subscriber.sentThrough
            if page.count < Self.pageSize {
                // A short page read everything committed by then, which includes `through`.
                sentThrough = max(sentThrough, through)
                if sentThrough >= publishedThrough {
                    subscribers[id]!.sentThrough = sentThrough
                    subscribers[id]!.replaying = false
                    continue
                }
            }
            subscribers[id]!.sentThrough = sentThrough
            // More to send: now if the client keeps up, else when it has drained (`onDrain`).
            if backlog < Self.lowWater { markReady(id) }
            if page.count == Self.pageSize && publishedThrough != through {
                // Events were committed while the page was made: input is coming in.
                condition.unlock()
                usleep(Self.pauseMicroseconds)
                condition.lock()
            }
        }
        condition.unlock()
    }
}

extension StreamPublisher.Subscriber {
    func wants(_ name: String) -> Bool {
        (source == nil || source == name) && (admits?(name) ?? true)
    }
}
