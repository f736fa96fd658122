import ThreadSupport

/// Answers that can wait, made below the HTTP workers' priority. A route whose work is a long
/// read (a page of the delivery log or of the history: a query and a hundred rows of JSON)
/// hands it here and its connection waits suspended (`Response.pending`), so the worker goes
/// back to serving presses; the lane's thread runs at nice 10, so a press never waits for a
/// core behind a page being rendered (clients polling the log in a loop raised press p99 from
/// 5 to 12 ms on two cores). At most `capacity` answers wait; past that the route answers
/// 503 with `Retry-After` at once.
public final class SlowLane: @unchecked Sendable {  // `work`, `head` and `stopped` are touched with `condition` locked only
    private let condition = Condition()
    private var work: [@Sendable () -> Void] = []
    private var head = 0
    private var stopped = false
    private let threads: Int
    private let capacity: Int

    public init(threads: Int = 1, capacity: Int = 64) {
        self.threads = threads
        self.capacity = capacity
    }

    /// Starts the lane's threads, at nice 10.
    public func start() {
        for _ in 0..<threads {
            startThread(name: "buttond.slow", nice: 10) { [self] in
                while let work = next() { work() }
            }
        }
    }

    /// Lets the threads end once no answer waits (after the HTTP server has stopped: it waits
    /// for every suspended answer first). An answer asked for after this is made at once, on
    /// the caller's thread.
    public func stop() {
        condition.locked {
            stopped = true
            condition.broadcast()
        }
    }

    /// The answer `make` gives `request`, made on the lane: `Response.pending`, or 503 with
    /// `Retry-After` when `capacity` answers already wait. What `make` throws is answered as a
    /// route's error is.
    public func answer(_ request: Request, _ make: @escaping @Sendable () throws -> Response) -> Response {
        let pending = PendingResponse()
        let queued = condition.locked { () -> Bool? in
            guard !stopped else { return nil }
            guard work.count - head < capacity else { return false }
            work.append { pending.complete(Router<Unguarded>.run(request, { _, _ in try make() }, ())) }
            condition.signal()
            return true
        }
        switch queued {
        case true: return .pending(pending)
        case false: return HTTPError.unavailable("too many reads of the logs are waiting; try again", retryAfter: 1).response
        case nil: return Router<Unguarded>.run(request, { _, _ in try make() }, ())
        }
    }

    /// The oldest waiting answer's work, waiting for one; nil once stopped with none waiting.
    private func next() -> (@Sendable () -> Void)? {
        condition.locked {
            while head == work.count && !stopped { condition.wait() }
            guard head < work.count else { return nil }
            let first = work[head]
            head += 1
            if head == work.count {
                work.removeAll(keepingCapacity: true)
                head = 0
            }
            return first
        }
    }
}
