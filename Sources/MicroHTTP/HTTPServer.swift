import ThreadSupport
import CMicroHTTPD
import CMicroHTTPDShims
import Dispatch
import FoundationEssentials
import Platform
import Dispatch
import Synchronization

/// An HTTP server on libmicrohttpd: poll worker threads call `Router` handlers synchronously.
public final class HTTPServer: Sendable {
    public let configuration: ServerConfiguration
    /// What request durations, the drain at stop and the refusal log's throttle are measured on.
    public let clock: Clock
    let router: any RequestRouting
    let onRequest: (@Sendable (RequestRecord) -> Void)?
    /// Told of each connection answered 503 for being over a connection limit.
    let onConnectionRefused: (@Sendable (ConnectionRefusal) -> Void)?
    let refusalThrottle = RefusalThrottle()
    public let streams: StreamHub
    /// `configuration.defaultHeaders` as the C strings every response is given, made once:
    /// `name\0value\0` for each (see `bd_add_response_headers`).
    let defaultHeaders: [CChar]
    private let daemon = Locked<CHandle?>(nil)
    private let boundPort = Atomic<Int>(0)
    private let heartbeat = Locked<HeartbeatTimer?>(nil)
    /// Daemons a certificate reload replaced, still serving their connections.
    private let retired = Locked<[CHandle]>([])
    /// Requests whose answer is still being produced (their connections are suspended).
    private let pendingCount = Atomic<Int>(0)
    /// Set when stopping begins: from then on a pending answer is waited for on the worker
    /// thread, never by suspending, so the count of suspended connections can only fall.
    private let stopping = Atomic<Bool>(false)
    /// The connections of each daemon started (requests under way are counted from them).
    private let watchGroups = Locked<[WatchGroup]>([])

    // Not specialized in the module that calls it (it runs once): Swift 6.3.1's copy
    // propagation crashed on its specialization under cross-module optimization.
    @_optimize(none)
    public init(
        configuration: ServerConfiguration, clock: Clock, router: some RequestRouting, streams: StreamHub? = nil,
        onRequest: (@Sendable (RequestRecord) -> Void)? = nil,
        onConnectionRefused: (@Sendable (ConnectionRefusal) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.clock = clock
        self.router = router
        self.onRequest = onRequest
        self.onConnectionRefused = onConnectionRefused
        defaultHeaders = configuration.defaultHeaders.flatMap { name, value in name.utf8CString + value.utf8CString }
        self.streams = streams ?? StreamHub(maxStreams: configuration.maxStreams)
    }

    /// The bound port (the real one when configured with 0); 0 before `start`.
    public var port: Int { boundPort.load(ordering: .acquiring) }

    /// Why a server could not start (the port, the certificate, and for the whole application
    /// whatever part failed): the one start error.
    public struct StartError: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) { self.description = description }
    }

    public func start() throws {
        signal(SIGPIPE, SIG_IGN)
        // The connection limit must be reachable: the soft limit on open files is often 1024.
        // libmicrohttpd accepts twice the limit, to answer those over it (see the shim).
        SystemLimits.allowOpenFiles(2 * configuration.connectionLimit + 512)
        let started = try startDaemon(listenFD: -1, tls: configuration.tls)
        daemon.withLock { $0 = CHandle(pointer: started) }
        boundPort.store(Int(bd_daemon_port(started)), ordering: .releasing)
        startHeartbeat()
    }

    /// A new certificate without dropping a connection: the running daemon stops accepting and
    /// hands its listening socket to a new one with `tls`; it keeps serving the connections it
    /// has and is stopped once they are all gone (checked by the heartbeat's reaper).
    public func reload(tls: ServerConfiguration.TLSCredentials) throws {
        try daemon.withLock { current throws in
            guard let old = current?.pointer else { return }
            let listener = MHD_quiesce_daemon(old)
            guard listener >= 0 else { throw StartError(description: "cannot hand the listening socket over") }
            let next: OpaquePointer
            do {
                next = try startDaemon(listenFD: listener, tls: tls)
            } catch {
                // Keep serving with what worked: the old certificate, on the same socket.
                if let again = try? startDaemon(listenFD: listener, tls: configuration.tls) {
                    current = CHandle(pointer: again)
                    retired.withLock { $0.append(CHandle(pointer: old)) }
                }
                throw error
            }
            current = CHandle(pointer: next)
            retired.withLock { $0.append(CHandle(pointer: old)) }
        }
    }

    /// Stops the daemons a reload left behind once their last connection is gone.
    private static func reapRetired(_ retired: Locked<[CHandle]>) {
        let done = retired.withLock { list in
            let empty = list.filter { bd_daemon_connections($0.pointer) == 0 }
            list.removeAll { bd_daemon_connections($0.pointer) == 0 }
            return empty
        }
        for handle in done { MHD_stop_daemon(handle.pointer) }
    }

    /// The address to listen on, from the configured host (an IP literal) and port.
    private func listenAddress() throws -> (storage: sockaddr_storage, ipv6: Bool) {
        var storage = sockaddr_storage()
        let host = configuration.host == "localhost" ? "127.0.0.1" : configuration.host
        let port = UInt16(clamping: configuration.port)
        let ipv6 = host.contains(":")
        let parsed = withUnsafeMutableBytes(of: &storage) { raw in
            if ipv6 {
                let addr = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                addr.pointee.sin6_family = sa_family_t(AF_INET6)
                addr.pointee.sin6_port = port.bigEndian
                return inet_pton(AF_INET6, host, &addr.pointee.sin6_addr) == 1
            }
            let addr = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
            addr.pointee.sin_family = sa_family_t(AF_INET)
            addr.pointee.sin_port = port.bigEndian
            return inet_pton(AF_INET, host, &addr.pointee.sin_addr) == 1
        }
        guard parsed else {
            throw StartError(description: "not an \(ipv6 ? "IP" : "IPv4/IPv6") address: \(configuration.host)")
        }
        return (storage, ipv6)
    }

    private func startDaemon(listenFD: Int32, tls: ServerConfiguration.TLSCredentials?) throws -> OpaquePointer {
        var (storage, ipv6) = try listenAddress()
        // libmicrohttpd reads the PEM text while it starts (GnuTLS keeps its own copy).
        let cert = tls.map { strdup($0.certificatePEM) } ?? nil
        let key = tls.map { strdup($0.keyPEM) } ?? nil
        let password = tls?.keyPassword.map { strdup($0) } ?? nil
        defer {
            free(cert)
            if let key { memset(key, 0, strlen(key)) }
            free(key)
            free(password)
        }
        let trusted = configuration.trustedProxies.flatMap(\.shimBytes)
        let started: OpaquePointer? = trusted.withUnsafeBufferPointer { trusted in withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                var options = bd_daemon_options(
                    ipv6: ipv6 ? 1 : 0, turbo: 0, bind_addr: address,
                    connection_limit: UInt32(configuration.connectionLimit),
                    per_ip_limit: UInt32(configuration.perIPConnectionLimit),
                    trusted_ranges: trusted.baseAddress, trusted_count: UInt32(configuration.trustedProxies.count),
                    idle_timeout_seconds: UInt32(configuration.idleTimeoutSeconds),
                    connection_memory_limit: configuration.connectionMemoryLimit,
                    thread_pool_size: UInt32(configuration.threads),
                    listen_backlog: UInt32(configuration.listenBacklog),
                    max_query_parameters: UInt32(configuration.maxQueryParameters),
                    request_deadline_ms: UInt32(configuration.requestDeadlineSeconds * 1000),
                    tls_cert: cert, tls_key: key, tls_key_password: password, listen_fd: listenFD, watch_group: nil)
                let me = Unmanaged.passUnretained(self).toOpaque()
                let daemon = bd_start_daemon(&options, accessHandler, me, requestCompleted, me)
                if let group = options.watch_group { watchGroups.withLock { $0.append(WatchGroup(pointer: group)) } }
                return daemon
            }
        } }
        guard let started else {
            if tls != nil {
                throw StartError(
                    description: "cannot start HTTPS on \(configuration.host):\(configuration.port) (address in use, or "
                        + "GnuTLS refused the certificate or key)")
            }
            throw StartError(
                description: "cannot listen on \(configuration.host):\(configuration.port) (address in use or not available)")
        }
        return started
    }

    private func startHeartbeat() {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "buttond.heartbeat"))
        let interval = configuration.heartbeatSeconds
        timer.schedule(deadline: .now() + interval, repeating: interval)
        let hub = streams
        timer.setEventHandler { hub.broadcast(Array(": heartbeat\n\n".utf8)) }
        timer.resume()
        let reaper = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "buttond.stream-reaper"))
        reaper.schedule(deadline: .now() + 0.25, repeating: 0.25)
        // Not `[weak self]`: a weakly referenced object keeps its reference counts in a side
        // table, and every request's retain of the server then took the slow path.
        let retired = retired
        reaper.setEventHandler {
            hub.reapHungUp()
            Self.reapRetired(retired)
        }
        reaper.resume()
        heartbeat.withLock { $0 = HeartbeatTimer(source: timer, reaper: reaper) }
    }

    /// Stops accepting (new connections are refused at once), ends open event streams, and
    /// waits up to `drainSeconds` until every request that has begun is read and answered;
    /// each answer from then on closes its connection. The daemon runs on until `stop`, so a
    /// stop can take no new request while what is in flight elsewhere finishes.
    public func stopAccepting() {
        guard let running = daemon.withLock({ $0 })?.pointer,
            !stopping.exchange(true, ordering: .sequentiallyConsistent)
        else { return }
        heartbeat.withLock { timer in
            timer?.source.cancel()
            timer?.reaper.cancel()
            timer = nil
        }
        let listener = MHD_quiesce_daemon(running)
        // Refuse new connections at once (a socket left listening would queue them unanswered);
        // the workers are woken by the quiesce and leave the socket alone first.
        usleep(20_000)
        if listener >= 0 { close(listener) }
        streams.finishAll()
        // Every request that has begun is read and answered (each answer now closes its
        // connection); libmicrohttpd must not stop with a connection suspended either.
        let drained = clock.monotonic() + configuration.drainSeconds
        while (pendingCount.load(ordering: .sequentiallyConsistent) > 0 || requestsUnderWay > 0) && clock.monotonic() < drained {
            usleep(2_000)
        }
    }

    /// `stopAccepting` if it has not run, then stops the daemon once no answer is pending.
    public func stop() {
        stopAccepting()
        guard let running = daemon.withLock({ d -> CHandle? in
            defer { d = nil }
            return d
        })?.pointer else { return }
        let answered = clock.monotonic() + max(0, 10 - configuration.drainSeconds)
        while pendingCount.load(ordering: .sequentiallyConsistent) > 0 && clock.monotonic() < answered { usleep(1_000) }
        MHD_stop_daemon(running)
        for handle in retired.withLock({ list in defer { list = [] }; return list }) { MHD_stop_daemon(handle.pointer) }
    }

    /// Connections with a request being read or answered, streams included.
    private var requestsUnderWay: Int {
        watchGroups.withLock { groups in groups.reduce(0) { $0 + Int(bd_requests_under_way($1.pointer)) } }
    }

    deinit { stop() }

    func record(_ record: RequestRecord) { onRequest?(record) }

    func pendingStarted() { pendingCount.add(1, ordering: .sequentiallyConsistent) }
    func pendingFinished() { pendingCount.subtract(1, ordering: .sequentiallyConsistent) }
    var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }
}

/// A daemon's watched connections in the C shim; kept for the life of the process.
struct WatchGroup: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}

/// The heartbeat's timer source; Dispatch sources are thread-safe to cancel from any thread.
struct HeartbeatTimer: @unchecked Sendable {
    let source: DispatchSourceTimer
    let reaper: DispatchSourceTimer
}
