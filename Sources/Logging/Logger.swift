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
    }

    public enum Format: String, Sendable, CaseIterable {
        case logfmt, json
    }

    public var level: Level
    public var format: Format

    public init(level: Level = .info, format: Format = .logfmt) {
        self.level = level
        self.format = format
    }

    /// `force` prints even below the level (the one-time generated-token announcement). The
    /// fields are only made when the line is written. A `gathered` line (a request's) may wait
    /// up to 2 ms to be written with others (`LogOutput`); any other is written at once.
    public func log(
        _ level: Level, _ message: String, _ fields: @autoclosure () -> KeyValuePairs<String, String> = [:], force: Bool = false,
        gathered: Bool = false
    ) {
        guard level >= self.level || force else { return }
        let fields = fields()
        let time = Timestamp.iso8601(milliseconds: Timestamp.now())
        var line: String
        switch format {
        case .logfmt:
            line = "ts=\(time) level=\(level.rawValue) msg=\(Self.quote(message))"
            for (key, value) in fields { line += " \(key)=\(Self.quote(value))" }
        case .json:
            line = "{\"ts\":\"\(time)\",\"level\":\"\(level.rawValue)\",\"msg\":\(Self.jsonString(message))"
            for (key, value) in fields { line += ",\(Self.jsonString(key)):\(Self.jsonString(value))" }
            line += "}"
        }
        line += "\n"
        if gathered { LogOutput.standardError.gather(line) } else { LogOutput.standardError.write(line) }
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
        guard !value.isEmpty else { return false }
        var ascii = true
        for byte in value.utf8 {
            if byte >= 0x80 {
                ascii = false
                break
            }
            // Controls and space, DEL, and the three logfmt quotes a value.
            if byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "=")
                || byte == UInt8(ascii: "\\")
            {
                return false
            }
        }
        if ascii { return true }
        return !value.unicodeScalars.contains { c in
            c == " " || c == "\"" || c == "=" || c == "\\" || isControl(c) || c.properties.isWhitespace
        }
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

