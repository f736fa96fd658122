/// An HTTP/1.1 response read as its bytes arrive, as a value (no socket in sight): the status,
/// the headers kept, the body up to a limit, and where the response ends — by
/// `Content-Length`, by chunks, by the connection's close, or with the head (204, 304) —
/// with whether the connection may carry the next request. Interim answers (`100 Continue`,
/// `103 Early Hints`) are skipped as libcurl skips them. What it refuses it names as libcurl
/// does (`PlainHTTP` reports its failures in libcurl's words, so a delivery's log reads the
/// same whichever of the two sent it).
struct ResponseReader {
    enum Progress: Equatable {
        /// The response is not whole yet.
        case more
        /// The response is whole; `keepAlive`: the connection may carry another request.
        case done(keepAlive: Bool)
        /// Not an HTTP response, or cut short: libcurl's error for it.
        case failed(PlainFailure)
    }

    private enum Framing: Equatable {
        case head
        case length(Int)
        case chunkSize(digits: Int, size: Int, inExtension: Bool)
        case chunkData(Int)
        /// The CR LF after a chunk's data.
        case chunkEnd
        /// Trailer lines after the last chunk, until an empty one; `lineLength` of the current.
        case trailers(lineLength: Int)
        case untilClose
        case finished
    }

    /// libcurl's `CURL_MAX_HTTP_HEADER`: a head longer than this is refused.
    static let headLimit = 100 * 1024

    private(set) var status = 0
    /// Names in lower case; of a repeated header, the last.
    private(set) var headers: [String: String] = [:]
    private(set) var body: [UInt8] = []
    /// Bytes taken so far, of every interim and final answer.
    private(set) var received = 0
    private(set) var keepAlive = true
    private let bodyLimit: Int
    private let keptHeaders: [String]?
    /// The request was `HEAD`: the answer has no body whatever its headers say.
    private let noBody: Bool
    private var head: [UInt8] = []
    private var framing = Framing.head

    init(bodyLimit: Int = .max, keptHeaders: [String]? = nil, noBody: Bool = false) {
        self.bodyLimit = bodyLimit
        self.keptHeaders = keptHeaders
        self.noBody = noBody
    }


    /// Takes the next bytes of the connection.
    mutating func take(_ bytes: UnsafeRawBufferPointer) -> Progress {
        received += bytes.count
        var index = 0
        while index < bytes.count {
            switch framing {
            case .finished:
                // Bytes after the end: not an answer to anything sent; the connection goes.
                keepAlive = false
                return .done(keepAlive: false)
            case .head:
                let start = head.count
                head.append(contentsOf: bytes[index...])
                guard let end = Self.endOfHead(head, from: max(0, start - 3)) else {
                    if head.count > Self.headLimit { return .failed(.tooLargeHead) }
                    return .more
                }
                index += end - start
                let lines = head[..<end]
                head = []
                if let failure = readHead(lines) { return .failed(failure) }
            case .length(let left):
                let count = min(left, bytes.count - index)
                keep(bytes[index..<(index + count)])
                index += count
                framing = left == count ? .finished : .length(left - count)
            case .chunkData(let left):
                let count = min(left, bytes.count - index)
                keep(bytes[index..<(index + count)])
                index += count
                framing = left == count ? .chunkEnd : .chunkData(left - count)
            case .untilClose:
                keep(bytes[index...])
                index = bytes.count
            case .chunkSize, .chunkEnd, .trailers:
                if let failure = chunkByte(bytes[index]) { return .failed(failure) }
                index += 1
            }
        }
        return framing == .finished ? .done(keepAlive: keepAlive) : .more
    }

    /// The connection ended (the peer closed it).
    mutating func end() -> Progress {
        switch framing {
        case .finished, .untilClose:
            framing = .finished
            keepAlive = false
            return .done(keepAlive: false)
        case .head:
            return .failed(received == 0 ? .gotNothing : .receive)
        default:
            return .failed(.partial)
        }
    }

    private mutating func keep(_ bytes: Slice<UnsafeRawBufferPointer>) {
        guard body.count < bodyLimit else { return }
        body.append(contentsOf: bytes.prefix(bodyLimit - body.count))
    }

    /// Where the head ends (after its empty line: CR LF CR LF, or bare LFs as libcurl takes them).
    private static func endOfHead(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] == 0x0A {
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    /// Reads a whole head; an interim one (1xx but 101) leaves the reader waiting for the next.
    private mutating func readHead(_ bytes: ArraySlice<UInt8>) -> PlainFailure? {
        let lines = Self.lines(bytes)
        guard let statusLine = lines.next(), let (minor, code) = Self.statusLine(statusLine) else { return .weirdReply }
        if (100..<200).contains(code) && code != 101 { return nil }
        status = code
        headers = [:]
        keepAlive = minor >= 1
        var length: Int?
        var chunked = false
        while let line = lines.next() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = line[..<colon]
            let value = Self.trimmed(line[(colon + 1)...])
            if name.equalsIgnoringCase("content-length") {
                guard let number = Self.decimal(value), length == nil || length == number else { return .weirdReply }
                length = number
            } else if name.equalsIgnoringCase("transfer-encoding") {
                let last = value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).last.map(Self.trimmed)
                chunked = last.map { $0.equalsIgnoringCase("chunked") } ?? false
            } else if name.equalsIgnoringCase("connection") {
                for token in value.split(separator: UInt8(ascii: ",")).map(Self.trimmed) {
                    if token.equalsIgnoringCase("close") { keepAlive = false }
                    if minor == 0 && token.equalsIgnoringCase("keep-alive") { keepAlive = true }
                }
            }
            if keptHeaders?.contains(where: { name.equalsIgnoringCase($0) }) ?? true {
                headers[String(decoding: name, as: UTF8.self).lowercased()] = String(decoding: value, as: UTF8.self)
            }
        }
        if noBody || code == 204 || code == 304 || code == 101 {
            framing = .finished
            if code == 101 { keepAlive = false }
        } else if chunked {
            framing = .chunkSize(digits: 0, size: 0, inExtension: false)
        } else if let length {
            framing = length == 0 ? .finished : .length(length)
        } else {
            framing = .untilClose
            keepAlive = false
        }
        return nil
    }

    /// The head's lines without their CR LF (or bare LF), up to the empty one.
    private static func lines(_ bytes: ArraySlice<UInt8>) -> AnyIterator<ArraySlice<UInt8>> {
        var rest = bytes
        return AnyIterator {
            guard let end = rest.firstIndex(of: 0x0A) else { return nil }
            var line = rest[..<end]
            rest = rest[(end + 1)...]
            if line.last == 0x0D { line = line.dropLast() }
            return line.isEmpty ? nil : line
        }
    }

    /// `HTTP/1.x NNN …`: the minor version and the code.
    private static func statusLine(_ line: ArraySlice<UInt8>) -> (Int, Int)? {
        let prefix = "HTTP/1.".utf8
        guard line.starts(with: prefix) else { return nil }
        let afterPrefix = line.dropFirst(prefix.count)
        guard let space = afterPrefix.firstIndex(of: 0x20), let minor = decimal(afterPrefix[..<space]) else { return nil }
        let digits = line[space...].drop { $0 == 0x20 }.prefix { $0 != 0x20 }
        guard digits.count == 3, let code = decimal(digits), code >= 100 else { return nil }
        return (minor, code)
    }

    /// A number of ASCII digits only (no sign, not empty, at most 18 digits).
    private static func decimal(_ bytes: some Collection<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }


    /// One byte of a chunk's size line, of the CR LF after its data, or of the trailers.
    private mutating func chunkByte(_ byte: UInt8) -> PlainFailure? {
        switch framing {
        case .chunkSize(let digits, let size, let inExtension):
            if byte == 0x0A {
                guard digits > 0 else { return .weirdReply }
                framing = size == 0 ? .trailers(lineLength: 0) : .chunkData(size)
            } else if byte == 0x0D || inExtension {
                break
            } else if byte == UInt8(ascii: ";") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                framing = .chunkSize(digits: digits, size: size, inExtension: true)
            } else if let digit = Self.hexDigit(byte), digits < 15 {
                framing = .chunkSize(digits: digits + 1, size: size << 4 | digit, inExtension: false)
            } else {
                return .weirdReply
            }
        case .chunkEnd:
            if byte == 0x0A {
                framing = .chunkSize(digits: 0, size: 0, inExtension: false)
            } else if byte != 0x0D {
                return .weirdReply
            }
        case .trailers(let lineLength):
            if byte == 0x0A {
                framing = lineLength == 0 ? .finished : .trailers(lineLength: 0)
            } else if byte != 0x0D {
                framing = .trailers(lineLength: lineLength + 1)
            }
        default:
            break
        }
        return nil
    }

    private static func hexDigit(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        default: nil
        }
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return [] }
        return bytes[first...last]
    }
}
