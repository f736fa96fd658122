import Platform

/// One line per record on stderr, as logfmt or JSON lines. Never given a secret or a token.
public struct Logger: Sendable {
    public enum Level: String, Sendable, CaseIterable, Comparable {
        case debug, info, warn, error
        private var rank: Int {
            switch self {
            case .debug: 0
            case .info: 1
            case .warn: 2
            case .error: 3
            }
        }
        public static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }
        /// `rawValue`, as the constant a line copies.
        var text: StaticString {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warn: "warn"
            case .error: "error"
            }
        }
    }

    public enum Format: String, Sendable, CaseIterable {
        case logfmt, json
    }

    public var level: Level
    public var format: Format
    /// What each line's time is read from.
    public let clock: Clock
    /// The date of its last line's second, kept for the next (shared by its copies only).
    private let lineTime = LineTime()

    public init(level: Level = .info, format: Format = .logfmt, clock: Clock) {
        self.level = level
        self.format = format
        self.clock = clock
    }

    /// `force` prints even below the level (the one-time generated-token announcement). The
    /// fields are only made when the line is written. A `gathered` line (a request's) may wait
    /// up to 10 ms to be written with others (`LogOutput`); any other is written at once.
    public func log(
        _ level: Level, _ message: String, _ fields: @autoclosure () -> KeyValuePairs<String, String> = [:], force: Bool = false,
        gathered: Bool = false
    ) {
        log(level, message, force: force, gathered: gathered) { line in
            for (key, value) in fields() { line.field(named: key, value) }
        }
    }

    /// `log`, with `fields` adding each field to the line itself (only when it is written): a
    /// request's line is written this way, without first making a list of its fields.
    public func log(_ level: Level, _ message: String, force: Bool = false, gathered: Bool = false, fields: (inout LogLine) -> Void) {
        guard level >= self.level || force else { return }
        // On the stack: a request's line fits in far less, and a longer one moves to the heap.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buffer in
            var line = LogLine(buffer: buffer, format: format, at: clock.now(), level: level, message: message, lineTime: lineTime)
            fields(&line)
            line.finished { bytes in
                if gathered { LogOutput.standardError.gather(bytes) } else { LogOutput.standardError.write(bytes) }
            }
        }
    }

    /// C0 and C1 controls, DEL, and the Unicode line and paragraph separators: what could end
    /// a line or drive a terminal (UTF-8 encoded C1 codes do, in xterm).
    static func isControl(_ c: Unicode.Scalar) -> Bool {
        c.value < 0x20 || (0x7F...0x9F).contains(c.value) || c.value == 0x2028 || c.value == 0x2029
    }

    static func quote(_ value: String) -> String {
        if isPlain(value) { return value }
        return jsonString(value)
    }

    /// Whether a value goes into a logfmt line as it is. Every request's line passes its values
    /// through here, so ASCII (nearly all of them) is decided on its bytes; Unicode's whitespace
    /// property is only asked of the rest.
    static func isPlain(_ value: String) -> Bool {
        if let plain = value.withUTF8Bytes(plainASCII) { return plain }
        return !value.unicodeScalars.contains { c in
            c == " " || c == "\"" || c == "=" || c == "\\" || isControl(c) || c.properties.isWhitespace
        }
    }

    /// `isPlain` decided on a value's bytes where ASCII settles it (a byte to quote before any
    /// non-ASCII one, or no non-ASCII byte at all); nil when Unicode must decide.
    static func plainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
        // Eight bytes a word while no byte in it may need a look (a request's path, route and
        // address are all plain): a word that may is looked at byte by byte, from its start.
        var plainPrefix = 0
        while plainPrefix + 8 <= bytes.count,
            !mayNeedQuoting(UnsafeRawPointer(base + plainPrefix).loadUnaligned(as: UInt64.self))
        {
            plainPrefix += 8
        }
        for byte in UnsafeBufferPointer(rebasing: bytes[plainPrefix...]) {
            if byte >= 0x80 { return nil }
            // Controls and space, DEL, and the three logfmt quotes a value.
            if byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "=")
                || byte == UInt8(ascii: "\\")
            {
                return false
            }
        }
        return true
    }

    /// Whether a byte of `word` may be non-ASCII, a control, a space, DEL or a logfmt quote
    /// (`"`, `=`, `\\`). Never false when one is; sometimes true when none is (then the bytes say).
    static func mayNeedQuoting(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        /// A byte of `v` that is 0 sets its high bit here (and may set the bits of those above it).
        func zeroByte(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highs }
        let below21 = (word &- 0x21 &* ones) & ~word & highs
        let special = zeroByte(word ^ (0x7F &* ones)) | zeroByte(word ^ (0x22 &* ones)) | zeroByte(word ^ (0x3D &* ones))
            | zeroByte(word ^ (0x5C &* ones))
        return (word & highs) | below21 | special != 0
    }

    static func jsonString(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if isControl(scalar) {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

