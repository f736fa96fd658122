import FoundationEssentials
import Glibc
import Dispatch

/// A small blocking HTTP/1.1 client over a POSIX socket (plain http only). The `buttond`
/// client commands use it, and live tests use it to see exactly what goes over the wire.
public struct HTTPClient: Sendable {
    public let host: String
    public let port: Int
    public var token: String?
    public var timeoutSeconds: Int

    public init(host: String = "127.0.0.1", port: Int, token: String? = nil, timeoutSeconds: Int = 10) {
        self.host = host
        self.port = port
        self.token = token
        self.timeoutSeconds = timeoutSeconds
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public struct Reply: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
        public var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }
        public func header(_ name: String) -> String? { headers[name.lowercased()] }
        public var errorCode: String? {
            if case .string(let code)? = json["error"]?["code"] { return code }
            return nil
        }
    }

    @discardableResult
    public func request(
        _ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:]
    ) throws -> Reply {
        let connection = try ClientConnection(host: host, port: port, timeoutSeconds: timeoutSeconds)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        var headers = headers
        if let token, headers["Authorization"] == nil { headers["Authorization"] = "Bearer \(token)" }
        if let body {
            if headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
            head += "Content-Length: \(body.count)\r\n"
        }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try connection.write(Array(head.utf8) + (body ?? []))
        return try connection.readReply(bodyless: method == "HEAD")
    }

    @discardableResult
    public func request(_ method: String, _ path: String, json: String, headers: [String: String] = [:]) throws -> Reply {
        try request(method, path, body: Array(json.utf8), headers: headers)
    }

    public func get(_ path: String) throws -> Reply { try request("GET", path) }

    /// Opens a GET whose response is read incrementally (server-sent events).
    public func stream(_ path: String, headers: [String: String] = [:]) throws -> StreamReader {
        let connection = try ClientConnection(host: host, port: port, timeoutSeconds: timeoutSeconds)
        var head = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nAccept: text/event-stream\r\n"
        var headers = headers
        if let token, headers["Authorization"] == nil { headers["Authorization"] = "Bearer \(token)" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try connection.write(Array((head + "\r\n").utf8))
        return try StreamReader(connection: connection)
    }
}

/// One TCP connection with a receive timeout, so no caller can hang on it.
public final class ClientConnection: @unchecked Sendable {  // used by one thread at a time
    public let fd: Int32
    var buffer: [UInt8] = []

    public init(host: String = "127.0.0.1", port: Int, timeoutSeconds: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPClient.Failure(description: "socket failed") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        // No close(fd) before a throw below: the object is whole by then, so deinit runs and
        // closes it. Closing twice would close whatever descriptor took the number meanwhile
        // (in a test process, a server's connection).
        guard inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host, &address.sin_addr) == 1 else {
            throw HTTPClient.Failure(description: "not an IPv4 address: \(host)")
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            throw HTTPClient.Failure(description: "cannot connect to \(host):\(port)")
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    public func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw HTTPClient.Failure(description: "send failed") }
            sent += n
        }
    }

    /// Reads more bytes into the buffer; false at end of stream.
    func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n == 0 { return false }
        guard n > 0 else { throw HTTPClient.Failure(description: "receive timed out or failed (errno \(errno))") }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<index])
                buffer.removeFirst(index + 1)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard try fill() else { throw HTTPClient.Failure(description: "connection closed mid-line") }
        }
    }

    func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw HTTPClient.Failure(description: "connection closed mid-body") }
        }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    func readHead() throws -> (Int, [String: String]) {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw HTTPClient.Failure(description: "bad status line: \(statusLine)")
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
    func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
            throw HTTPClient.Failure(description: "bad chunk size: \(sizeLine)")
        }
        if size == 0 { return nil }
        let bytes = try readExactly(size)
        _ = try readLine()
        return bytes
    }

    func readReply(bodyless: Bool = false) throws -> HTTPClient.Reply {
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

/// Reads a server-sent event stream message by message.
public final class StreamReader: @unchecked Sendable {  // used by one thread at a time
    public let status: Int
    public let headers: [String: String]
    let connection: ClientConnection
    var text = ""
    let chunked: Bool

    init(connection: ClientConnection) throws {
        self.connection = connection
        (status, headers) = try connection.readHead()
        chunked = headers["transfer-encoding"]?.lowercased() == "chunked"
    }

    public struct Message: Sendable {
        public var id: String?
        public var event: String?
        public var data: String
        public var comment: Bool
    }

    /// The next message (or comment block); throws on timeout or end of stream.
    public func next() throws -> Message {
        while true {
            if let range = text.firstRange(of: "\n\n") {
                let block = text[..<range.lowerBound]
                text.removeSubrange(..<range.upperBound)
                var message = Message(id: nil, event: nil, data: "", comment: false)
                var dataLines: [String] = []
                for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix(":") {
                        message.comment = true
                    } else if line.hasPrefix("id:") {
                        message.id = line.dropFirst(3).trimmed()
                    } else if line.hasPrefix("event:") {
                        message.event = line.dropFirst(6).trimmed()
                    } else if line.hasPrefix("data:") {
                        var data = line.dropFirst(5)
                        if data.first == " " { data = data.dropFirst() }
                        dataLines.append(String(data))
                    }
                }
                message.data = dataLines.joined(separator: "\n")
                return message
            }
            if chunked {
                guard let chunk = try connection.readChunk() else { throw HTTPClient.Failure(description: "stream ended") }
                text += String(decoding: chunk, as: UTF8.self)
            } else {
                guard try connection.fill() else { throw HTTPClient.Failure(description: "stream ended") }
                text += String(decoding: connection.buffer, as: UTF8.self)
                connection.buffer = []
            }
        }
    }

    /// The next message that is not a comment (heartbeat).
    public func nextEvent() throws -> Message {
        while true {
            let message = try next()
            if !message.comment { return message }
        }
    }

    /// True when the server has ended the stream (reads until end or timeout).
    public func endsWithin(seconds: Int) -> Bool {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(connection.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while true {
            do {
                if chunked {
                    if try connection.readChunk() == nil { return true }
                } else if try !connection.fill() {
                    return true
                }
            } catch {
                return (error as? HTTPClient.Failure)?.description.contains("closed") ?? false
            }
        }
    }
}

extension ClientConnection {
    /// Reads one reply from a connection the caller wrote to by hand.
    public func readReplyForTests() throws -> HTTPClient.Reply { try readReply() }
}
