import CCurl
import Platform
import ThreadSupport

/// Many requests in flight from one thread: a `curl_multi` event loop. Any thread hands a
/// request over (`send`, which wakes the loop with `curl_multi_wakeup`); the loop adds it,
/// drives every transfer as its sockets become ready (`curl_multi_poll`), and calls each one's
/// completion on the loop's thread, so a completion must be quick (hand the answer over).
/// Connections are kept alive and reused across requests to the same host; easy handles are
/// reset and reused. What `PlainRequest` takes (plain `http://` to an IP literal, the webhooks
/// of a LAN) goes to `PlainHTTP` instead, on a thread of its own, without libcurl.
public final class HTTPLoop: @unchecked Sendable {  // `shared` is guarded by `lock`; `active` is the loop thread's
    public typealias Completion = @Sendable (Result<HTTPClient.Reply, HTTPClient.Failure>) -> Void

    private struct Shared {
        var incoming: [(Transfer, Completion)] = []
        var idle: [UnsafeMutableRawPointer] = []
        var running = false
        var stopping = false
        var stopped = false
        /// The multi handle and the idle easy handles are gone (`release`).
        var released = false
    }

    private let multi: UnsafeMutableRawPointer
    private let lock = Condition()
    private var shared = Shared()
    private var active: [UnsafeMutableRawPointer: (Transfer, Completion)] = [:]
    private let name: String
    private let nice: Int32
    private let plain: PlainHTTP
    /// Idle easy handles kept for reuse at most.
    static let idleLimit = 64

    /// `connections`: how many idle connections are kept open for reuse. `clock`: what
    /// `PlainHTTP`'s timeouts are measured on (libcurl's own are the OS's). `nice`: the loops'
    /// threads' nice value (a server's deliveries yield to its input).
    public init(name: String = "buttond.http", connections: Int = 64, nice: Int32 = 0, clock: Clock) {
        Curl.start()
        multi = curl_multi_init()
        self.name = name
        self.nice = nice
        plain = PlainHTTP(name: name + "1", connections: connections, nice: nice, clock: clock)
        bd_curl_multi_set_long(multi, CURLMOPT_MAXCONNECTS, connections)
    }

    deinit {
        release()
    }

    /// Starts the loop's thread (once).
    public func start() {
        let start = lock.locked {
            defer { shared.running = true }
            return !shared.running && !shared.stopping
        }
        guard start else { return }
        plain.start()
        startThread(name: name, nice: nice) { [self] in run() }
    }

    /// Starts `request`; `completion` is called once, on the loop's thread, with the answer
    /// or why there is none. After `stop`, at once with a failure.
    public func send(_ request: HTTPRequest, completion: @escaping Completion) {
        if let plainRequest = PlainRequest(request) { return plain.send(plainRequest, completion: completion) }
        guard let handle = lock.locked({ shared.idle.popLast() }) ?? curl_easy_init() else {
            return completion(.failure(HTTPClient.Failure(description: "libcurl could not start")))
        }
        let transfer: Transfer
        do throws(HTTPClient.Failure) {
            transfer = try Transfer(request, handle: handle)
        } catch {
            curl_easy_cleanup(handle)
            return completion(.failure(error))
        }
        // The loop is woken by the first request it has not taken yet; those after it ride on
        // that wake-up (a busy dispatcher hands several over at once, and each wake-up is a
        // system call here and one in the loop).
        // The wake-up is under the lock: once `stop` has seen the loop end, the multi handle
        // goes, and no sender may still be about to wake it.
        let accepted = lock.locked {
            guard !shared.stopping else { return false }
            shared.incoming.append((transfer, completion))
            if shared.incoming.count == 1 { curl_multi_wakeup(multi) }
            return true
        }
        guard accepted else { return Self.cutOff([(transfer, completion)]) }
    }

    /// Ends the loop: transfers under way are cut off and completed with a failure. Waits
    /// for the loop's thread to end.
    public func stop() {
        let (wait, unstarted) = lock.locked {
            shared.stopping = true
            defer { if !shared.running { shared.incoming = [] } }
            return (shared.running, shared.running ? [] : shared.incoming)
        }
        curl_multi_wakeup(multi)
        plain.stop()
        Self.cutOff(unstarted)
        if wait { lock.locked { while !shared.stopped { lock.wait() } } }
        release()
    }

    /// Once the loop's thread has ended (or never started): the multi handle (its wake-up
    /// socket pair and its cached connections) and the idle easy handles go, so a stopped loop
    /// holds no descriptor even while something still holds the loop.
    private func release() {
        let idle: [UnsafeMutableRawPointer]? = lock.locked {
            guard !shared.released else { return nil }
            shared.released = true
            defer { shared.idle = [] }
            return shared.idle
        }
        guard let idle else { return }
        for handle in idle { curl_easy_cleanup(handle) }
        curl_multi_cleanup(multi)
    }

    static let stoppedFailure = HTTPClient.Failure(description: "the HTTP loop has stopped")

    private func run() {
        var stillRunning: Int32 = 0
        while true {
            let (incoming, stopping) = lock.locked {
                defer { shared.incoming = [] }
                return (shared.incoming, shared.stopping)
            }
            if stopping {
                Self.cutOff(incoming)
                break
            }
            for (transfer, completion) in incoming {
                active[transfer.handle] = (transfer, completion)
                curl_multi_add_handle(multi, transfer.handle)
            }
            curl_multi_perform(multi, &stillRunning)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
                let code = message.pointee.data.result
                curl_multi_remove_handle(multi, handle)
                guard let (transfer, completion) = active.removeValue(forKey: handle) else { continue }
                let result = transfer.finish(code)
                recycle(handle)
                completion(result)
            }
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        for handle in active.keys { curl_multi_remove_handle(multi, handle) }
        Self.cutOff(Array(active.values))
        active = [:]
        lock.locked {
            shared.stopped = true
            lock.broadcast()
        }
    }

    /// Transfers the loop will not run: their handles go, their completions say so.
    private static func cutOff(_ transfers: [(Transfer, Completion)]) {
        for (transfer, completion) in transfers {
            curl_easy_cleanup(transfer.handle)
            completion(.failure(stoppedFailure))
        }
    }

    /// A handle whose transfer ended goes back to the pool, reset (its connection stays in
    /// the loop's cache).
    private func recycle(_ handle: UnsafeMutableRawPointer) {
        curl_easy_reset(handle)
        let kept = lock.locked {
            guard shared.idle.count < Self.idleLimit else { return false }
            shared.idle.append(handle)
            return true
        }
        if !kept { curl_easy_cleanup(handle) }
    }
}
