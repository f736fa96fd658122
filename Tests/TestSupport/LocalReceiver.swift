import CurlHTTP
import Platform
import ThreadSupport

/// A TCP listener on 127.0.0.1 for webhook tests. With `answer`, it answers every request with
/// those bytes (one request a connection). Without, it never accepts: the kernel completes
/// each connection (the backlog is deep) and nobody ever reads or writes, so a webhook to it
/// runs into its `timeoutMs`.
public final class LocalReceiver: @unchecked Sendable {  // fields are set once in init
    public let fd: Int32
    public let port: Int

    public init(answer: String? = nil) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && listen(fd, 256) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw HTTPClient.Failure(description: "cannot listen on 127.0.0.1")
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        answers = answer != nil
        if let answer { startThread(name: "receiver") { Self.answer(fd, with: Array(answer.utf8)) } }
    }

    /// A thread answers on `fd`, and closes it once the listener is shut down: closed here, its
    /// number could be given to another test's new socket while that thread still used it (it
    /// then answered that socket's connections).
    private let answers: Bool

    /// Reads each request's head, writes `bytes`, hangs up; until the listener is closed.
    private static func answer(_ fd: Int32, with bytes: [UInt8]) {
        let end = Array("\r\n\r\n".utf8)
        while true {
            let client = accept(fd, nil, nil)
            guard client >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                close(fd)  // shut down by deinit
                return
            }
            var buffer = [UInt8](repeating: 0, count: 65536)
            var head: [UInt8] = []
            while !head.indices.contains(where: { head[$0...].starts(with: end) }) {
                let n = read(client, &buffer, buffer.count)
                guard n > 0 else { break }
                head += buffer[0..<n]
            }
            _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            close(client)
        }
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        if !answers { close(fd) }
    }
}
