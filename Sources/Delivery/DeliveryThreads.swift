import ThreadSupport

/// The threads blocking senders run on: one per attempt under way, made when none is idle and
/// ended after a while without work. How many run at once is the dispatcher's to bound
/// (`--delivery-concurrency`); a script waits for no webhook and no webhook for a script.
/// Started at nice 5 (`nice`): input comes first, and what a script spawns
/// inherits it. Each dispatcher's senders share one pool (`HandlerSenders`), the MQTT bridge
/// has its own: nothing of it is process-wide.
public final class DeliveryThreads: @unchecked Sendable {  // the fields are guarded by `condition`
    private let condition = Condition()
    private var jobs: [@Sendable () -> Void] = []
    private var idle = 0
    private var count = 0
    /// An idle thread ends after this long without work.
    static let idleSeconds = 30.0
    /// The nice value of every thread that delivers (these, the HTTP loops, the dispatcher,
    /// the delivery log's writer): a press is answered before its deliveries go out, which
    /// are durable in the outbox meanwhile.
    public static let nice: Int32 = 5

    public init() {}

    /// Runs `job` on a thread of the pool, at once.
    public func run(_ job: @escaping @Sendable () -> Void) {
        let start = condition.locked {
            jobs.append(job)
            guard idle > jobs.count - 1 else {
                count += 1
                return true
            }
            condition.signal()
            return false
        }
        if start { startThread(name: "buttond.send", nice: Self.nice) { [self] in work() } }
    }

    private func work() {
        condition.lock()
        while true {
            if jobs.isEmpty {
                idle += 1
                let woken = condition.wait(seconds: Self.idleSeconds)
                idle -= 1
                if !woken && jobs.isEmpty { break }
                continue
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
            condition.lock()
        }
        count -= 1
        condition.unlock()
    }
}
