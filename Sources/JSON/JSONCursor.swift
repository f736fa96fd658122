/// Writes JSON pieces with plain stores into a buffer its caller sized beforehand (an upper
/// bound: `bound(of:)`, `integerBound`). The hot paths (every event's JSON, its numbers and
/// strings) render a whole piece through one and append it to an array once: appending to
/// an array byte by byte, or piece by piece, pays its uniqueness and capacity checks each
/// time, several times what the bytes cost.
///
/// Made only by `render(bound:_:)` and `JSONWriter.append(bound:_:)`, over a buffer that
/// lives for the call, and lent to their body (noncopyable: no copy of it outlives the
/// buffer); writing past the bound stops the program (every write checks its room first).
/// Its small writes are always inlined: called from other modules once per byte or piece,
/// a call each would cost more than the stores.
public struct JSONCursor: ~Copyable {
    @usableFromInline let buffer: UnsafeMutableBufferPointer<UInt8>
    /// Bytes written so far.
    public var count: Int { position }
    @usableFromInline var position = 0

    /// Most bytes an `Int64` takes (`-9223372036854775808`).
    @inlinable public static var integerBound: Int { 20 }

    /// Most bytes `string(_:)` writes for `string`: every byte escaped as `\u00XX`, and the quotes.
    @inlinable
    public static func bound(of string: String) -> Int { 2 + 6 * string.utf8.count }

    private init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    /// The bytes `body` writes, in at most `bound` of them: one array of exactly that size.
    public static func render(bound: Int, _ body: (inout JSONCursor) -> Void) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { buffer in
            var cursor = JSONCursor(buffer)
            body(&cursor)
            return Array(UnsafeBufferPointer(rebasing: buffer[..<cursor.count]))
        }
    }

    /// Appends to `bytes` what `body` writes, in at most `bound` bytes.
    static func append(to bytes: inout [UInt8], bound: Int, _ body: (inout JSONCursor) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { buffer in
            var cursor = JSONCursor(buffer)
            body(&cursor)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<cursor.count]))
        }
    }

    /// Reserves `length` bytes for `body` to fill, all of them (a fixed-width piece such as
    /// a timestamp).
    @inlinable @inline(__always)
    public mutating func fixed(_ length: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        checkRoom(length)
        body(UnsafeMutableBufferPointer(rebasing: buffer[position..<(position + length)]))
        position += length
    }

    @inlinable @inline(__always)
    public mutating func byte(_ byte: UInt8) {
        checkRoom(1)
        buffer[position] = byte
        position += 1
    }

    /// Literal JSON, as it is.
    @inlinable @inline(__always)
    public mutating func raw(_ text: StaticString) {
        let length = text.utf8CodeUnitCount
        checkRoom(length)
        UnsafeMutableRawPointer(buffer.baseAddress! + position).copyMemory(from: text.utf8Start, byteCount: length)
        position += length
    }

    /// `"key":`, with a leading comma unless `first`.
    @inlinable @inline(__always)
    public mutating func key(_ key: StaticString, first: Bool = false) {
        if !first { byte(UInt8(ascii: ",")) }
        byte(UInt8(ascii: "\""))
        raw(key)
        raw("\":")
    }

    /// A JSON number, at most `integerBound` bytes: its digits counted, then written from the
    /// last into their places, two at a time (every event has two numbers of up to thirteen
    /// digits: its seq and its time).
    @inlinable
    public mutating func integer(_ value: Int64) {
        checkRoom(Self.integerBound)
        if value < 0 {
            buffer[position] = UInt8(ascii: "-")
            position += 1
        }
        var magnitude = value.magnitude
        var digits = 1
        var power: UInt64 = 10
        while digits < 20 && magnitude >= power {
            digits += 1
            power &*= 10
        }
        position += digits
        var place = position
        while magnitude >= 100 {
            let pair = magnitude % 100
            magnitude /= 100
            place -= 2
            buffer[place] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: pair / 10)
            buffer[place + 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: pair % 10)
        }
        if magnitude >= 10 {
            buffer[place - 2] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude / 10)
            buffer[place - 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
        } else {
            buffer[place - 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude)
        }
    }

    /// Stops the program if fewer than `length` bytes are left: a caller's bound was wrong.
    @inlinable @inline(__always)
    func checkRoom(_ length: Int) {
        precondition(length <= buffer.count - position, "JSONCursor: past the bound its caller gave")
    }

    /// A JSON string, quoted and escaped per RFC 8259, at most `bound(of:)` bytes. Most
    /// strings (ids, names, types) need no escape: one scan, then one copy.
    public mutating func string(_ string: String) {
        byte(UInt8(ascii: "\""))
        contents(of: string)
        byte(UInt8(ascii: "\""))
    }

    /// A JSON string of `prefix` and then what `suffix` writes: at most `maxSuffix` bytes of
    /// printable ASCII that need no escape, its length returned (an id's digits, say, written
    /// in place rather than made a string first). Takes `bound(of: prefix) + maxSuffix` bytes.
    public mutating func string(_ prefix: String, maxSuffix: Int, _ suffix: (UnsafeMutableBufferPointer<UInt8>) -> Int) {
        byte(UInt8(ascii: "\""))
        contents(of: prefix)
        checkRoom(maxSuffix)
        position += suffix(UnsafeMutableBufferPointer(rebasing: buffer[position..<(position + maxSuffix)]))
        byte(UInt8(ascii: "\""))
    }

    /// `string`'s characters, escaped where JSON needs it, without the quotes.
    private mutating func contents(of string: String) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { bytes in
            if Self.needsEscape(bytes) {
                escaped(bytes)
            } else {
                checkRoom(bytes.count)
                let room = UnsafeMutableBufferPointer(rebasing: buffer[position..<(position + bytes.count)])
                UnsafeMutableRawBufferPointer(room).copyMemory(from: UnsafeRawBufferPointer(bytes))
                position += bytes.count
            }
        }
        if done == nil { escaped(string.utf8) }
    }

    private static func needsEscape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
        return false
    }

    private mutating func escaped<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0..<0x20:
                raw("\\u00")
                self.byte(Self.hexDigit(byte >> 4))
                self.byte(Self.hexDigit(byte & 0xF))
            default: self.byte(byte)
            }
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
