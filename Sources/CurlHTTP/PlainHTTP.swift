import CCurl
import Platform
import ThreadSupport

/// HTTP/1.1 over plain TCP for the requests `PlainRequest` takes (an IP literal, `http://`),
/// from one thread with one epoll set: what libcurl's loop did for a webhook to the LAN, without
/// its per-transfer handle set-up and its zero-timeout polls (3.2 system calls a delivery to
/// check connections it is about to use). A connection is registered once, edge-triggered for
/// both directions, and kept alive for the next request to the same address and port; an idle
/// one that the peer closes is closed as soon as that is seen. A request whose reused
/// connection turns out closed before any byte of an answer is sent again on a new one, as
/// libcurl does. Answers and failures read as libcurl's (`PlainFailure`). Completions run on
/// the loop's thread: they must be quick.
final class PlainHTTP: @unchecked Sendable {  // `shared` is guarded by `lock`; the rest is the loop thread's
    typealias Completion = HTTPLoop.Completion

    private struct Job {
        let request: PlainRequest
        let completion: Completion
    }

    private struct Shared {
        var incoming: [Job] = []
        var running = false
        /// The loop waits in `epoll_wait`: the next `send` rings the bell.
        var sleeping = false
        var stopping = false
        var stopped = false
        /// The epoll set and the bell are closed (by the first `stop`, once the thread ended).
        var closed = false
    }

    /// A connection and the request it carries (none while idle).
    private final class Connection {
        let fd: Int32
        /// Its key in `connections` and in its epoll registration: a number never used again,
        /// so an event of a closed descriptor cannot reach the connection that took its number.
        let serial: UInt64
        let endpoint: PlainRequest.Endpoint
        var job: Job?
        var connected = false
        /// It carried an answer before: a close before any byte of this one sends it again.
        var reused = false
        var sent = 0
        var reader = ResponseReader()
        /// Monotonic milliseconds: the request's start, and when it is given up.
        var started: Int64 = 0
        var deadline: Int64 = .max

        init(fd: Int32, serial: UInt64, endpoint: PlainRequest.Endpoint) {
            self.fd = fd
            self.serial = serial
            self.endpoint = endpoint
        }
    }

    private let lock = Condition()
    private var shared = Shared()
    private let name: String
    private let nice: Int32
    private let clock: Clock
    private let epoll: Int32
    private let bell: Int32
    private var connections: [UInt64: Connection] = [:]
    private var lastSerial: UInt64 = 0
    private var idle: [PlainRequest.Endpoint: [Connection]] = [:]
    private var idleCount = 0
    private let idleLimit: Int
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// `connections`: how many idle connections are kept at most. `clock`: the timeouts are
    /// measured on its monotonic time (the server's is the OS's, as libcurl's are).
    init(name: String, connections: Int, nice: Int32 = 0, clock: Clock) {
        self.name = name
        self.nice = nice
        self.clock = clock
        idleLimit = connections
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        bell = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: 0))
        epoll_ctl(epoll, EPOLL_CTL_ADD, bell, &event)
    }

    deinit {
        for connection in connections.values { close(connection.fd) }
        if !shared.closed { closeDescriptors() }
    }

    private func closeDescriptors() {
        close(bell)
        close(epoll)
    }

    func start() {
        let start = lock.locked {
            defer { shared.running = true }
            return !shared.running && !shared.stopping
        }
        guard start else { return }
        startThread(name: name, nice: nice) { [self] in run() }
    }

    func send(_ request: PlainRequest, completion: @escaping Completion) {
        // The bell is rung under the lock: `stop` closes it under the lock too.
        let accepted = lock.locked {
            guard !shared.stopping else { return false }
            shared.incoming.append(Job(request: request, completion: completion))
            if shared.sleeping { eventfd_write(bell, 1) }
            shared.sleeping = false
            return true
        }
        guard accepted else { return completion(.failure(HTTPLoop.stoppedFailure)) }
    }

    /// Cuts off what is under way (completed with a failure), waits for the thread to end and
    /// closes the epoll set and the bell: a stopped loop holds no descriptor, even while
    /// something still holds the loop (a process that starts and stops many servers, the tests,
    /// ran out of descriptor numbers that `Process` could handle).
    func stop() {
        let (wait, unstarted) = lock.locked {
            shared.stopping = true
            if !shared.closed { eventfd_write(bell, 1) }
            defer { if !shared.running { shared.incoming = [] } }
            return (shared.running, shared.running ? [] : shared.incoming)
        }
        for job in unstarted { job.completion(.failure(HTTPLoop.stoppedFailure)) }
        lock.locked {
            if wait { while !shared.stopped { lock.wait() } }
            if !shared.closed { closeDescriptors() }
            shared.closed = true
        }
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let (jobs, stopping) = lock.locked {
                defer { shared.incoming = [] }
                shared.sleeping = shared.incoming.isEmpty && !shared.stopping
                return (shared.incoming, shared.stopping)
            }
            if stopping {
                for job in jobs { job.completion(.failure(HTTPLoop.stoppedFailure)) }
                break
            }
            for job in jobs { start(job) }
            let timeout = jobs.isEmpty ? waitMs() : 0
            let count = epoll_wait(epoll, &events, Int32(events.count), timeout)
            for event in events.prefix(Int(max(0, count))) {
                if event.data.u64 == 0 {
                    var value: eventfd_t = 0
                    eventfd_read(bell, &value)
                } else if let connection = connections[event.data.u64] {
                    ready(connection, events: event.events)
                }
            }
            expire()
        }
        for connection in Array(connections.values) {
            let job = connection.job
            discard(connection)
            job?.completion(.failure(HTTPLoop.stoppedFailure))
        }
        lock.locked {
            shared.stopped = true
            lock.broadcast()
        }
    }

    // MARK: - Requests

    private func start(_ job: Job) {
        let endpoint = job.request.endpoint
        if let reason = job.request.addressCheck?(endpoint.address, endpoint.port) {
            return job.completion(.failure(PlainFailure.refused(reason).failure(base: job.request.base)))
        }
        let now = clock.monotonicMilliseconds()
        if let connection = idle[endpoint]?.popLast() {
            idleCount -= 1
            connection.reused = true
            begin(job, on: connection, at: now)
            write(connection)
        } else {
            open(job, at: now)
        }
    }

    /// A new connection for `job`, connecting without blocking.
    private func open(_ job: Job, at now: Int64) {
        let endpoint = job.request.endpoint
        var (address, length) = IPAddress.socketAddress(endpoint.address, port: endpoint.port)
        let fd = socket(Int32(address.ss_family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return job.completion(.failure(PlainFailure.connect(errno).failure(base: job.request.base))) }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        let failure = errno
        guard result == 0 || failure == EINPROGRESS else {
            close(fd)
            return job.completion(.failure(PlainFailure.connect(failure).failure(base: job.request.base)))
        }
        lastSerial += 1
        let connection = Connection(fd: fd, serial: lastSerial, endpoint: endpoint)
        connections[lastSerial] = connection
        let interest = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
        var event = epoll_event(events: interest, data: epoll_data_t(u64: lastSerial))
        epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event)
        begin(job, on: connection, at: now)
        connection.connected = result == 0
        if connection.connected {
            write(connection)
        } else {
            connection.deadline = min(connection.deadline, now + Int64(job.request.connectTimeoutMs))
        }
    }

    private func begin(_ job: Job, on connection: Connection, at now: Int64) {
        connection.job = job
        connection.sent = 0
        connection.reader = ResponseReader(bodyLimit: job.request.bodyLimit, keptHeaders: job.request.keptHeaders)
        connection.started = now
        connection.deadline = job.request.timeoutMs.map { now + Int64($0) } ?? .max
    }

    // MARK: - Events

    private func ready(_ connection: Connection, events: UInt32) {
        guard connection.job != nil else {
            // Idle: gone if the peer closed it or sent what nobody asked for. An edge can also
            // come late for the answer already read (its last segment arrived after the wait
            // returned): then there is nothing to read, and the connection stays.
            var byte: UInt8 = 0
            let peeked = recv(connection.fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
            if peeked < 0 && (errno == EAGAIN || errno == EINTR) { return }
            return discard(connection)
        }
        if !connection.connected {
            guard events & (EPOLLOUT.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 else { return }
            var failure: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(connection.fd, SOL_SOCKET, SO_ERROR, &failure, &size)
            guard failure == 0 else { return finish(connection, .failure(.connect(failure))) }
            connection.connected = true
            connection.deadline = connection.job?.request.timeoutMs.map { connection.started + Int64($0) } ?? .max
        }
        let bytes = connection.job?.request.bytes.count ?? 0
        if connection.sent < bytes, events & (EPOLLOUT.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
            write(connection)
        }
        if connection.job != nil, connection.sent == bytes {
            read(connection)
        }
    }

    private func write(_ connection: Connection) {
        guard let job = connection.job else { return }
        let bytes = job.request.bytes
        while connection.sent < bytes.count {
            let count = bytes.withUnsafeBytes { all in
                Platform.send(connection.fd, all.baseAddress! + connection.sent, all.count - connection.sent, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                connection.sent += count
            } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
                if errno == EAGAIN { return }
            } else {
                return finish(connection, .failure(.send(errno)))
            }
        }
    }

    private func read(_ connection: Connection) {
        while connection.job != nil {
            let count = buffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                let progress = buffer.withUnsafeBytes { connection.reader.take(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                switch progress {
                case .more: continue
                case .done(let keepAlive): return finish(connection, .success(keepAlive))
                case .failed(let failure): return finish(connection, .failure(failure))
                }
            } else if count == 0 {
                switch connection.reader.end() {
                case .done: return finish(connection, .success(false))
                case .failed(let failure): return finish(connection, .failure(failure))
                case .more: return
                }
            } else if errno == EAGAIN {
                return
            } else if errno != EINTR {
                return finish(connection, .failure(connection.reader.received == 0 ? .gotNothing : .receive))
            }
        }
    }

    /// Requests past their deadline are given up, and their connections closed.
    private func expire() {
        let now = clock.monotonicMilliseconds()
        for connection in connections.values where connection.deadline <= now && connection.job != nil {
            finish(connection, .failure(.timedOut(afterMs: Int(now - connection.started))))
        }
    }

    /// Milliseconds until the nearest deadline (-1: none, wait for an event).
    private func waitMs() -> Int32 {
        let nearest = connections.values.lazy.filter { $0.job != nil }.map(\.deadline).min() ?? .max
        guard nearest != .max else { return -1 }
        return Int32(clamping: max(0, nearest - clock.monotonicMilliseconds()) + 1)
    }

    // MARK: - Ends

    /// Ends the connection's request: an answer (`keepAlive`: the connection goes idle) or a
    /// failure. A reused connection that ended before any byte of the answer sends it again.
    private func finish(_ connection: Connection, _ outcome: Result<Bool, PlainFailure>) {
        guard let job = connection.job else { return }
        connection.job = nil
        switch outcome {
        case .success(let keepAlive):
            let reader = connection.reader
            if keepAlive { park(connection) } else { discard(connection) }
            job.completion(.success(HTTPClient.Reply(status: reader.status, headers: reader.headers, body: reader.body)))
        case .failure(let failure):
            let retry = connection.reused && connection.reader.received == 0 && !Self.isTimeout(failure)
            discard(connection)
            if retry {
                open(job, at: clock.monotonicMilliseconds())
            } else {
                job.completion(.failure(failure.failure(base: job.request.base)))
            }
        }
    }

    private static func isTimeout(_ failure: PlainFailure) -> Bool {
        if case .timedOut = failure { return true }
        return false
    }

    /// Keeps an idle connection for its endpoint's next request (the oldest goes past the limit).
    private func park(_ connection: Connection) {
        connection.reused = true
        connection.deadline = .max
        idle[connection.endpoint, default: []].append(connection)
        idleCount += 1
        if idleCount > idleLimit, let (endpoint, list) = idle.first(where: { !$0.value.isEmpty }) {
            idle[endpoint]?.removeFirst()
            idleCount -= 1
            discard(list[0])
        }
    }

    private func discard(_ connection: Connection) {
        if let list = idle[connection.endpoint], let index = list.firstIndex(where: { $0 === connection }) {
            idle[connection.endpoint]?.remove(at: index)
            idleCount -= 1
        }
        connections[connection.serial] = nil
        close(connection.fd)
    }
}
