import CurlHTTP
import Platform

// Tests that write bytes no HTTP client would send (a header arriving byte by byte, two
// requests on one connection, a broken chunk) use a plain socket and read the answer here.

/// One TCP connection with a receive timeout, so no caller can hang on it.
public final class RawConnection: @unchecked Sendable {  // used by one thread at a time
    public let fd: Int32

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }
    var buffer: [UInt8] = []

    public init(host: String = "127.0.0.1", port: Int, timeoutSeconds: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawConnection.Failure(description: "socket failed") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        // No close(fd) before a throw below: the object is whole by then, so deinit runs and
        // closes it. Closing twice would close whatever descriptor took the number meanwhile
        // (in a test process, a server's connection).
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
            throw RawConnection.Failure(description: "not an IPv4 address: \(host)")
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            throw RawConnection.Failure(description: "cannot connect to \(host):\(port)")
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    public func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw RawConnection.Failure(description: "send failed") }
            sent += n
        }
    }

    /// Reads more bytes into the buffer; false at end of stream.
    func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n == 0 { return false }
        guard n > 0 else { throw RawConnection.Failure(description: "receive timed out or failed (errno \(errno))") }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    public func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<index])
                buffer.removeFirst(index + 1)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard try fill() else { throw RawConnection.Failure(description: "connection closed mid-line") }
        }
    }

    func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw RawConnection.Failure(description: "connection closed mid-body") }
        }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    public func readHead() throws -> (Int, [String: String]) {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw RawConnection.Failure(description: "bad status line: \(statusLine)")
        }
        var headers: [String: String] = [:]
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            if let colon = line.firstIndex(of: ":") {
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmed()
            }
        }
        return (status, headers)
    }

    /// Reads one chunk of a chunked body; nil at the last chunk.
    public func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
            throw RawConnection.Failure(description: "bad chunk size: \(sizeLine)")
        }
        if size == 0 { return nil }
        let bytes = try readExactly(size)
        _ = try readLine()
        return bytes
    }

    /// Reads until the server closes the connection (true) or `seconds` pass (false).
    public func closedWithin(seconds: Double) -> Bool {
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let deadline = Clock.system.monotonic() + seconds
        var byte: UInt8 = 0
        while Clock.system.monotonic() < deadline {
            let n = recv(fd, &byte, 1, 0)
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { return true }
        }
        return false
    }

    public func readReply(bodyless: Bool = false) throws -> HTTPClient.Reply {
        let (status, headers) = try readHead()
        var body: [UInt8] = []
        if bodyless {
            return HTTPClient.Reply(status: status, headers: headers, body: [])
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while let chunk = try readChunk() { body += chunk }
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            body = try readExactly(length)
        } else if status != 204 && status != 304 {
            while try fill() {}
            body = buffer
            buffer = []
        }
        return HTTPClient.Reply(status: status, headers: headers, body: body)
    }
}

extension StringProtocol {
    fileprivate func trimmed() -> String { String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()) }
}
