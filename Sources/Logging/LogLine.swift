import Platform

/// A log line as it is written: it starts with its time, level and message, and `field` adds
/// each key and value in the line's format (logfmt or JSON). Built with plain stores into one
/// buffer (the logger's, on the stack, grown onto the heap only for a very long line): string
/// interpolation and `+=` cost a request's line several allocations and most of its
/// instructions, and appending its pieces to an array paid the array's checks for each.
public struct LogLine: ~Copyable {
    private var start: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    /// `start` was allocated here (the line outgrew its first buffer), not lent by the caller.
    private var owned = false
    private let format: Logger.Format

    init(
        buffer: UnsafeMutableBufferPointer<UInt8>, format: Logger.Format, at time: Int64, level: Logger.Level,
        message: String, lineTime: LineTime
    ) {
        start = buffer.baseAddress!
        capacity = buffer.count
        self.format = format
        switch format {
        case .logfmt:
            put("ts=" as StaticString)
            lineTime.append(time, to: &self)
            put(" level=" as StaticString)
            put(level.text)
            put(" msg=" as StaticString)
            putQuoted(message)
        case .json:
            put(#"{"ts":""# as StaticString)
            lineTime.append(time, to: &self)
            put(#"","level":""# as StaticString)
            put(level.text)
            put(#"","msg":"# as StaticString)
            putJSONString(message)
        }
    }

    deinit { if owned { start.deallocate() } }

    /// Adds ` key=value` (the value quoted when it must be), or `,"key":"value"` in JSON. `key`
    /// is written as it is: a name of letters, digits and `_` (every field a request's line has).
    public mutating func field(_ key: StaticString, _ value: String) {
        putKey(key)
        putValue(value)
    }

    /// `field`, for a key made at run time (escaped in JSON, as a value is).
    public mutating func field(named key: String, _ value: String) {
        let escaped = format == .json ? Logger.jsonString(key) : nil
        key.withUTF8Bytes { putKey($0, escaped: escaped) }
        putValue(value)
    }

    private mutating func putValue(_ value: String) {
        switch format {
        case .logfmt: putQuoted(value)
        case .json: putJSONString(value)
        }
    }

    /// A field whose value is printable ASCII that needs no quotes nor escapes (a number's digits).
    mutating func field(_ key: StaticString, plain value: UnsafeBufferPointer<UInt8>) {
        putKey(key)
        switch format {
        case .logfmt:
            put(value)
        case .json:
            put(UInt8(ascii: "\""))
            put(value)
            put(UInt8(ascii: "\""))
        }
    }

    /// What comes before a field's value: ` key=`, or `,"key":` in JSON. A constant key's bytes
    /// are copied from the binary (a `String` key was looked at through its UTF-8 view).
    private mutating func putKey(_ key: StaticString) { putKey(Self.bytes(of: key), escaped: nil) }

    /// ` key=`, or `,"key":` in JSON (`escaped`, when given, is the key as a JSON string).
    private mutating func putKey(_ key: UnsafeBufferPointer<UInt8>, escaped: String?) {
        switch format {
        case .logfmt:
            put(UInt8(ascii: " "))
            put(key)
            put(UInt8(ascii: "="))
        case .json:
            put(UInt8(ascii: ","))
            if let escaped {
                put(escaped)
            } else {
                put(UInt8(ascii: "\""))
                put(key)
                put(UInt8(ascii: "\""))
            }
            put(UInt8(ascii: ":"))
        }
    }

    /// The line's bytes, ended (and closed, in JSON), lent to `body`.
    mutating func finished<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if format == .json { put(UInt8(ascii: "}")) }
        put(UInt8(ascii: "\n"))
        return body(UnsafeBufferPointer(start: start, count: count))
    }

    /// Room for `extra` more bytes: a line past its buffer moves to one twice as large.
    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let larger = max(2 * capacity, count + extra)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: start, count: count)
        if owned { start.deallocate() }
        start = moved
        capacity = larger
        owned = true
    }

    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (start + count).update(from: base, count: bytes.count)
        count += bytes.count
    }

    mutating func put(_ byte: UInt8) {
        reserve(1)
        start[count] = byte
        count += 1
    }

    /// `text`'s bytes, as they are.
    mutating func put(_ text: String) { text.withUTF8Bytes { put($0) } }

    /// A constant's bytes, as they are.
    mutating func put(_ text: StaticString) { put(Self.bytes(of: text)) }

    /// A constant's UTF-8, where the binary holds it.
    private static func bytes(of text: StaticString) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// `Logger.quote(value)`'s bytes: printable ASCII (nearly every value) is checked and
    /// copied in one pass over its bytes.
    private mutating func putQuoted(_ value: String) {
        let copied = value.withUTF8Bytes { bytes in
            guard Logger.plainASCII(bytes) == true else { return false }
            put(bytes)
            return true
        }
        if copied { return }
        if Logger.isPlain(value) { put(value) } else { put(Logger.jsonString(value)) }
    }

    /// `Logger.jsonString(value)`'s bytes: a value of printable ASCII with nothing to escape
    /// (nearly every one) is copied as it is.
    private mutating func putJSONString(_ value: String) {
        let copied = value.withUTF8Bytes { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
            else { return false }
            put(UInt8(ascii: "\""))
            put(bytes)
            put(UInt8(ascii: "\""))
            return true
        }
        if !copied { put(Logger.jsonString(value)) }
    }
}
