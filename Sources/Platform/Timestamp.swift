/// Epoch milliseconds ↔ the ISO-8601 UTC text of `at`, without Foundation's formatters.
package enum Timestamp {
    package static func iso8601(milliseconds: Int64) -> String {
        String(decoding: iso8601Bytes(milliseconds: milliseconds), as: UTF8.self)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` as bytes.
    package static func iso8601Bytes(milliseconds: Int64) -> [UInt8] {
        var out: [UInt8] = []
        iso8601(milliseconds: milliseconds, into: &out)
        return out
    }

    /// The length of `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    @inlinable package static var iso8601Length: Int { 24 }

    /// Appends `YYYY-MM-DDTHH:MM:SS.mmmZ` to `out`.
    package static func iso8601(milliseconds: Int64, into out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: iso8601Length) { buffer in
            iso8601(milliseconds: milliseconds, into: buffer)
            out.append(contentsOf: buffer)
        }
    }

    /// Writes `YYYY-MM-DDTHH:MM:SS.mmmZ` into `buffer` (`iso8601Length` bytes) with plain
    /// stores: it is on the hot path, every event's `at`.
    package static func iso8601(milliseconds: Int64, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        precondition(buffer.count == iso8601Length, "an ISO-8601 timestamp is 24 bytes")
        let ms = Int(((milliseconds % 1000) + 1000) % 1000)
        let seconds = (milliseconds - Int64(ms)) / 1000
        var days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        // Howard Hinnant's civil_from_days.
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = min(max(yearOfEra + era * 400 + (month <= 2 ? 1 : 0), 0), 9999)
        /// `value`'s last `width` digits from `offset`, then `separator`: straight-line stores.
        func put(_ value: Int, width: Int, at offset: Int, then separator: UInt8) {
            var rest = value
            for index in (offset..<(offset + width)).reversed() {
                buffer[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            buffer[offset + width] = separator
        }
        put(year, width: 4, at: 0, then: UInt8(ascii: "-"))
        put(month, width: 2, at: 5, then: UInt8(ascii: "-"))
        put(day, width: 2, at: 8, then: UInt8(ascii: "T"))
        put(secondOfDay / 3600, width: 2, at: 11, then: UInt8(ascii: ":"))
        put(secondOfDay / 60 % 60, width: 2, at: 14, then: UInt8(ascii: ":"))
        put(secondOfDay % 60, width: 2, at: 17, then: UInt8(ascii: "."))
        put(ms, width: 3, at: 20, then: UInt8(ascii: "Z"))
    }
}

/// The text of the last second `Timestamp` wrote through it (`YYYY-MM-DDTHH:MM:SS.`), so
/// that the next time of the same second copies it and writes only its milliseconds. A
/// value its one writer owns (the sequencer's open batch), never shared between threads.
package struct ISO8601Cache {
    /// The epoch second of `prefix`; nil before the first.
    private var second: Int64?
    private var prefix: (UInt64, UInt64, UInt32) = (0, 0, 0)
    private static let prefixLength = 20

    package init() {}

    /// `Timestamp.iso8601(milliseconds:into:)`, from the kept text if it is the same second
    /// (nearly every event of a batch is).
    package mutating func iso8601(milliseconds: Int64, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        precondition(buffer.count == Timestamp.iso8601Length, "an ISO-8601 timestamp is 24 bytes")
        let ms = ((milliseconds % 1000) + 1000) % 1000
        let second = (milliseconds - ms) / 1000
        guard second == self.second else {
            Timestamp.iso8601(milliseconds: milliseconds, into: buffer)
            let text = UnsafeMutableBufferPointer(rebasing: buffer[..<Self.prefixLength])
            withUnsafeMutableBytes(of: &prefix) { $0.copyMemory(from: UnsafeRawBufferPointer(text)) }
            self.second = second
            return
        }
        withUnsafeBytes(of: prefix) { UnsafeMutableRawBufferPointer(buffer).copyMemory(from: $0) }
        buffer[20] = UInt8(ascii: "0") + UInt8(ms / 100)
        buffer[21] = UInt8(ascii: "0") + UInt8(ms / 10 % 10)
        buffer[22] = UInt8(ascii: "0") + UInt8(ms % 10)
        buffer[23] = UInt8(ascii: "Z")
    }
}
