import ThreadSupport
import CMicroHTTPD
import CMicroHTTPDShims
import Synchronization

/// One open server-sent-event response. Writers append bytes from any thread; libmicrohttpd
/// pulls them through `read`. With nothing to send the connection is suspended (no busy
/// loop) and resumed by the next write. Every suspend/resume goes through the hub's one lock.
public final class EventStream: Sendable {
    struct State {
        var pending = ByteQueue()
        var connection: CHandle?
        var socket: Int32 = -1
        /// Writes may go straight to `socket` while the connection is suspended: libmicrohttpd
        /// then has nothing of its own left to send (it asks `read` for more only once all it
        /// had is sent), and it frames the body in chunks that `bd_write_chunk` writes alike.
        var direct = false
        var suspended = false
        var finished = false
        var closed = false
        /// Called (outside the lock) when the client has taken everything queued.
        var onDrain: (@Sendable () -> Void)?
    }

    let hub: StreamHub
    let id: Int
    /// Bytes a stream may have waiting before its client counts as too slow and is dropped.
    static let maxPending = 1 << 20

    init(hub: StreamHub, id: Int) {
        self.hub = hub
        self.id = id
    }

    /// Sends bytes to the client; false when the stream has ended (the client went away).
    ///
    /// An idle stream (suspended, nothing queued) writes them to its socket at once, on the
    /// calling thread: a committed event reaches its watchers without waiting for a worker
    /// thread to be woken and scheduled, which on a loaded machine took milliseconds. When
    /// the socket has too little room, or the connection is TLS, they are queued for
    /// libmicrohttpd to send.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        hub.withState(of: self) { state in
            guard !state.finished && !state.closed else { return false }
            if state.direct && state.suspended && state.pending.isEmpty && state.socket >= 0 {
                let written = bytes.withUnsafeBufferPointer { bd_write_chunk(state.socket, $0.baseAddress, $0.count) }
                if written > 0 { return true }
                if written < 0 {
                    // The peer is gone, or half a chunk went out: end the connection (a client
                    // that is still there reconnects with its Last-Event-ID).
                    shutdown(state.socket, Int32(SHUT_RDWR))
                    state.finished = true
                    Self.resumeIfSuspended(&state, hub.suspension)
                    return false
                }
            }
            if state.pending.count + bytes.count > Self.maxPending {
                state.pending.removeAll()
                state.finished = true
            } else {
                state.pending.append(contentsOf: bytes)
            }
            Self.resumeIfSuspended(&state, hub.suspension)
            return !state.finished
        }
    }

    /// Ends the stream once what is queued has been sent.
    public func finish() {
        hub.withState(of: self) { state in
            state.finished = true
            Self.resumeIfSuspended(&state, hub.suspension)
        }
    }

    public var isOpen: Bool { hub.withState(of: self) { !$0.finished && !$0.closed } }

    private static func resumeIfSuspended(_ state: inout State, _ suspension: SuspendResume) {
        if state.suspended, let connection = state.connection {
            state.suspended = false
            suspension.resume(connection.pointer)
        }
    }

    /// Asks for `handler` to be called each time the client has taken everything queued, so
    /// a producer (a history replay) can send the next part only as fast as the client reads,
    /// and once more when the stream closes.
    public func onDrain(_ handler: @escaping @Sendable () -> Void) {
        hub.withState(of: self) { $0.onDrain = handler }
    }

    /// Bytes queued and not yet taken by the client.
    public var pendingCount: Int { hub.withState(of: self) { $0.pending.count } }

    /// Called by libmicrohttpd's content reader: copies what is pending, or suspends.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        let (result, drained): (Int, (@Sendable () -> Void)?) = hub.withState(of: self) { state in
            if !state.pending.isEmpty {
                let count = state.pending.take(into: UnsafeMutableRawPointer(buffer), max: max)
                return (count, state.pending.isEmpty ? state.onDrain : nil)
            }
            if state.finished { return (-1, nil) }  // MHD_CONTENT_READER_END_OF_STREAM
            if let connection = state.connection {
                state.suspended = true
                hub.suspension.suspend(connection.pointer)
            }
            return (0, nil)
        }
        drained?()
        return result
    }

    /// The response was destroyed: the client left or the stream ended. A producer waiting
    /// for a drain hears of it the same way (`onDrain`), so nothing has to poll `isOpen`.
    func closed() {
        let drained = hub.withState(of: self) { state in
            state.closed = true
            state.connection = nil
            state.suspended = false
            return state.onDrain
        }
        hub.remove(self)
        drained?()
    }
}

/// All open event streams: caps how many may be open, sends heartbeats, and ends them all
/// at shutdown (libmicrohttpd must not be stopped with a connection suspended).
public final class StreamHub: Sendable {
    private struct Streams {
        var states: [Int: EventStream.State] = [:]
        var streams: [Int: EventStream] = [:]
        var nextID = 0
        var accepting = true
    }

    private let lock = Locked(Streams())
    public let maxStreams: Int
    /// The server's suspend/resume lock: its streams' connections and its pending responses'.
    public let suspension = SuspendResume()

    public init(maxStreams: Int) {
        self.maxStreams = maxStreams
    }

    func withState<T>(of stream: EventStream, _ body: (inout EventStream.State) -> T) -> T {
        lock.withLock { streams in
            if streams.states[stream.id] == nil {
                var gone = EventStream.State()
                gone.closed = true
                return body(&gone)
            }
            return body(&streams.states[stream.id]!)
        }
    }

    /// Opens a stream; 503 with `Retry-After` when the cap is reached or the server is stopping.
    public func open() throws(HTTPError) -> EventStream {
        try lock.withLock { streams throws(HTTPError) in
            guard streams.accepting else { throw .unavailable("the server is shutting down", retryAfter: 5) }
            guard streams.streams.count < maxStreams else {
                throw .unavailable("too many open event streams (limit \(maxStreams))", retryAfter: 5)
            }
            streams.nextID += 1
            let stream = EventStream(hub: self, id: streams.nextID)
            streams.streams[stream.id] = stream
            streams.states[stream.id] = EventStream.State()
            return stream
        }
    }

    /// Binds a stream to the connection that carries it, once its response is queued.
    func attach(_ stream: EventStream, to connection: OpaquePointer, direct: Bool) {
        let socket = bd_connection_fd(connection)
        lock.withLock { streams in
            streams.states[stream.id]?.connection = CHandle(pointer: connection)
            streams.states[stream.id]?.socket = socket
            streams.states[stream.id]?.direct = direct
        }
    }

    func remove(_ stream: EventStream) {
        lock.withLock { streams in
            streams.states[stream.id] = nil
            streams.streams[stream.id] = nil
        }
    }

    public var count: Int { lock.withLock { $0.streams.count } }

    public var all: [EventStream] { lock.withLock { Array($0.streams.values) } }

    /// Sends `bytes` to every open stream.
    public func broadcast(_ bytes: [UInt8]) {
        for stream in all { stream.send(bytes) }
    }

    /// A suspended connection is not watched by libmicrohttpd, so a client that hung up would
    /// keep its stream slot until the next write: end those streams now.
    func reapHungUp() {
        lock.withLock { streams in
            for id in streams.states.keys {
                guard let state = streams.states[id], state.suspended, state.socket >= 0, let connection = state.connection,
                    bd_peer_closed(state.socket) != 0
                else { continue }
                streams.states[id]!.finished = true
                streams.states[id]!.suspended = false
                suspension.resume(connection.pointer)
            }
        }
    }

    /// Ends every stream and refuses new ones; returns once no connection is suspended.
    func finishAll() {
        lock.withLock { streams in
            streams.accepting = false
            for id in streams.states.keys {
                streams.states[id]!.finished = true
                if streams.states[id]!.suspended, let connection = streams.states[id]!.connection {
                    streams.states[id]!.suspended = false
                    suspension.resume(connection.pointer)
                }
            }
        }
    }
}

/// Bytes waiting for a client, as the chunks they were sent in. A chunk is kept as it is
/// (arrays share their storage), so one batch of events sent to many streams is not copied
/// once per stream; a read copies from the front into libmicrohttpd's buffer.
struct ByteQueue {
    private var chunks: [[UInt8]] = []
    /// Chunks before this index are fully read.
    private var head = 0
    /// Bytes of `chunks[head]` already read.
    private var offset = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(contentsOf more: [UInt8]) {
        guard !more.isEmpty else { return }
        chunks.append(more)
        count += more.count
    }

    mutating func removeAll() {
        chunks = []
        head = 0
        offset = 0
        count = 0
    }

    /// Copies up to `max` bytes into `buffer` and drops them; returns how many.
    mutating func take(into buffer: UnsafeMutableRawPointer, max: Int) -> Int {
        var copied = 0
        while copied < max && head < chunks.count {
            let n = Swift.min(max - copied, chunks[head].count - offset)
            chunks[head].withUnsafeBytes { raw in
                (buffer + copied).copyMemory(from: raw.baseAddress! + offset, byteCount: n)
            }
            copied += n
            offset += n
            if offset == chunks[head].count {
                head += 1
                offset = 0
            }
        }
        count -= copied
        if head == chunks.count {
            removeAll()
        } else if head >= 64 {
            chunks.removeFirst(head)
            head = 0
        }
        return copied
    }
}
