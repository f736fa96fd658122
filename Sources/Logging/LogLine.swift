import Platform

/// A log line as it is written: it starts with its time, level and message, and `field` adds
/// each key and value in the line's format (logfmt or JSON). Built as bytes in one buffer:
/// string interpolation and `+=` cost a request's line several allocations and most of its
/// instructions.
public struct LogLine {
    private var bytes: [UInt8] = []
    private let format: Logger.Format

    init(format: Logger.Format, at time: Int64, level: Logger.Level, message: String, lineTime: LineTime) {
        self.format = format
        bytes.reserveCapacity(320)
        switch format {
        case .logfmt:
            Logger.append("ts=", to: &bytes)
            lineTime.append(time, to: &bytes)
            Logger.append(" level=", to: &bytes)
            Logger.append(level.rawValue, to: &bytes)
            Logger.append(" msg=", to: &bytes)
            Logger.appendQuoted(message, to: &bytes)
        case .json:
            Logger.append(#"{"ts":""#, to: &bytes)
            lineTime.append(time, to: &bytes)
            Logger.append(#"","level":""#, to: &bytes)
            Logger.append(level.rawValue, to: &bytes)
            Logger.append(#"","msg":"#, to: &bytes)
            Logger.appendJSONString(message, to: &bytes)
        }
    }

    /// Adds ` key=value` (the value quoted when it must be), or `,"key":"value"` in JSON.
    public mutating func field(_ key: String, _ value: String) {
        switch format {
        case .logfmt:
            bytes.append(UInt8(ascii: " "))
            Logger.append(key, to: &bytes)
            bytes.append(UInt8(ascii: "="))
            Logger.appendQuoted(value, to: &bytes)
        case .json:
            bytes.append(UInt8(ascii: ","))
            Logger.appendJSONString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            Logger.appendJSONString(value, to: &bytes)
        }
    }

    /// The line's bytes, ended (and closed, in JSON). Mutating rather than consuming: the
    /// bytes returned then share the line's buffer instead of being copied to end them.
    mutating func finished() -> [UInt8] {
        if format == .json { bytes.append(UInt8(ascii: "}")) }
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}
