import Platform
import Synchronization
import ThreadSupport

/// A TCP peer on 127.0.0.1 (port 0) that answers each request as the test scripts it, with
/// bytes no HTTP server library would send (a close before the answer, a chunked body with
/// extensions, an answer cut short). It reads each request whole (head, then a
/// `Content-Length` body) and records it with the connection it came on.
final class ScriptedPeer: Sendable {
    enum Action: Sendable {
        /// Writes these bytes and keeps the connection for the next request.
        case answer([UInt8])
        /// Writes these bytes, then closes the connection.
        case answerAndClose([UInt8])
        /// Closes the connection without a byte.
        case close
        /// Reads on and never answers (until the peer stops).
        case silent
    }

    struct Received: Sendable {
        /// Which accepted connection (0, 1, …).
        let connection: Int
        let bytes: [UInt8]
        var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    let port: Int
    private let fd: Int32
    private let state = Mutex<(accepted: Int, received: [Received], open: [Int32])>((0, [], []))
    private let script: @Sendable (Int) -> Action

    /// `script`: the action for the request of that index (0, 1, … over every connection).
    init(script: @escaping @Sendable (Int) -> Action) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            close(fd)
            throw PeerFailure()
        }
        self.fd = fd
        self.script = script
        port = Int(UInt16(bigEndian: address.sin_port))
        startThread(name: "scripted-peer") { [self] in acceptAll() }
    }

    struct PeerFailure: Error {}

    var accepted: Int { state.withLock { $0.accepted } }
    /// Connections the client has not closed (nor the peer).
    var open: Int { state.withLock { $0.open.count } }
    var received: [Received] { state.withLock { $0.received } }

    /// Stops accepting and closes every connection still open.
    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        let open = state.withLock { state in
            defer { state.open = [] }
            return state.open
        }
        for client in open { shutdown(client, Int32(SHUT_RDWR)) }
    }

    private func acceptAll() {
        while true {
            let client = accept(fd, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                close(fd)
                return
            }
            let index = state.withLock { state in
                state.open.append(client)
                defer { state.accepted += 1 }
                return state.accepted
            }
            startThread(name: "scripted-peer-connection") { [self] in serve(client, connection: index) }
        }
    }

    private func serve(_ client: Int32, connection: Int) {
        defer {
            state.withLock { $0.open.removeAll { $0 == client } }
            close(client)
        }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            // One whole request: its head, then as many body bytes as it says.
            var request: [UInt8]?
            while request == nil {
                if let end = Self.endOfHead(pending) {
                    let length = Self.contentLength(pending[..<end]) ?? 0
                    if pending.count >= end + length {
                        request = Array(pending[..<(end + length)])
                        pending.removeFirst(end + length)
                        break
                    }
                }
                let count = read(client, &buffer, buffer.count)
                guard count > 0 else { return }
                pending += buffer[..<count]
            }
            guard let request else { return }
            let index = state.withLock { state in
                state.received.append(Received(connection: connection, bytes: request))
                return state.received.count - 1
            }
            switch script(index) {
            case .answer(let bytes):
                guard write(client, bytes) else { return }
            case .answerAndClose(let bytes):
                _ = write(client, bytes)
                return
            case .close:
                return
            case .silent:
                while read(client, &buffer, buffer.count) > 0 {}
                return
            }
        }
    }

    private func write(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Platform.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index..<(index + 4)].elementsEqual([13, 10, 13, 10]) { return index + 4 }
        return nil
    }

    private static func contentLength(_ head: ArraySlice<UInt8>) -> Int? {
        let text = String(decoding: head, as: UTF8.self).lowercased()
        guard let line = text.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }) else { return nil }
        return Int(line.dropFirst("content-length:".count).trimmingPrefix(" "))
    }
}

extension ScriptedPeer.Action {
    /// An answer with a `Content-Length` body (and these extra header lines).
    static func ok(_ body: String, status: Int = 200, headers: [String] = []) -> Self {
        .answer(Array(("HTTP/1.1 \(status) OK\r\nContent-Length: \(body.utf8.count)\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n" + body).utf8))
    }
}
