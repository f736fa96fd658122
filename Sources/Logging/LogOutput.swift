import Platform
import ThreadSupport

/// Where log lines go: stderr. A request's line (one per request, SPEC §2) is gathered with the
/// others of the next 10 ms and written with them by a thread of its own: a `write` per request
/// on the HTTP worker cost a press more than the rest of its line (and woke a reader of the
/// pipe each time). Every other line is written at once, after the gathered ones before it, so
/// the order holds; past 1 MiB waiting (a stderr that does not keep up) a request's line is
/// written at once too, so its worker waits as it did. Every 10 ms, not 2: under sixteen-button
/// load the log thread's CPU went from ~0.55 to ~0.2 µs a press, and the pipe's reader (a log
/// collector; `make bench`'s Python) woke a fifth as often.
final class LogOutput: @unchecked Sendable {  // `pending` is only touched with `gate` held; `fd` with `writing` held
    static let standardError = LogOutput(fd: 2)

    private let fd: Int32
    private let gate = Condition()
    private let writing = Condition()
    private var pending: [UInt8] = []
    private var flusherStarted = false
    private static let gatherMicroseconds: UInt32 = 10_000
    private static let maxPending = 1 << 20

    init(fd: Int32) { self.fd = fd }

    /// Writes `line` now, after whatever was gathered before it.
    func write(_ line: String) { write(Array(line.utf8)) }

    /// Writes `line`'s bytes now, after whatever was gathered before it.
    func write(_ line: [UInt8]) { line.withUnsafeBufferPointer { write($0) } }

    func write(_ line: UnsafeBufferPointer<UInt8>) {
        writing.lock()
        defer { writing.unlock() }
        var bytes = take()
        bytes.append(contentsOf: line)
        writeAll(fd, bytes)
    }

    /// Writes `line` within 10 ms, with the others gathered meanwhile.
    func gather(_ line: String) { gather(Array(line.utf8)) }

    /// Writes `line`'s bytes within 10 ms, with the others gathered meanwhile.
    func gather(_ line: [UInt8]) { line.withUnsafeBufferPointer { gather($0) } }

    func gather(_ line: UnsafeBufferPointer<UInt8>) {
        gate.lock()
        if pending.count > Self.maxPending {
            gate.unlock()
            return write(line)
        }
        let wasEmpty = pending.isEmpty
        pending.append(contentsOf: line)
        if !flusherStarted {
            flusherStarted = true
            startThread(name: "buttond.log") { [self] in flush() }
        }
        if wasEmpty { gate.signal() }
        gate.unlock()
    }

    private func take() -> [UInt8] {
        gate.locked {
            var bytes: [UInt8] = []
            swap(&bytes, &pending)
            // Room for as many lines as this take holds: the workers gathering the next ones then
            // rarely grow the buffer (each growth copies every line gathered so far).
            pending.reserveCapacity(bytes.count)
            return bytes
        }
    }

    private func flush() {
        while true {
            gate.lock()
            while pending.isEmpty { gate.wait() }
            gate.unlock()
            usleep(Self.gatherMicroseconds)
            writing.lock()
            let bytes = take()
            if !bytes.isEmpty { writeAll(fd, bytes) }
            writing.unlock()
        }
    }
}
