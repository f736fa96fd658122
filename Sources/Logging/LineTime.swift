import Platform
import Synchronization

/// The time at the head of a log line, `YYYY-MM-DDTHH:MM:SS.mmmZ`. All but the milliseconds is
/// kept from the last line in the same second, so a busy server works out the date once a
/// second rather than for every request's line (it was a tenth of the line's cost).
enum LineTime {
    /// The second last formatted and its text up to the milliseconds (`…:SS.`).
    private static let last = Mutex<(second: Int64, text: [UInt8])>((.min, []))

    /// Appends `Timestamp.iso8601(milliseconds:)`'s text for `milliseconds` to `line`.
    static func append(_ milliseconds: Int64, to line: inout [UInt8]) {
        let ms = ((milliseconds % 1000) + 1000) % 1000
        let second = (milliseconds - ms) / 1000
        last.withLock { last in
            if last.second != second {
                // Formatted from the second's first millisecond: "000Z" is all that differs.
                last = (second, Array(Timestamp.iso8601Bytes(milliseconds: milliseconds - ms).dropLast(4)))
            }
            line.append(contentsOf: last.text)
        }
        line.append(UInt8(ascii: "0") + UInt8(ms / 100))
        line.append(UInt8(ascii: "0") + UInt8(ms / 10 % 10))
        line.append(UInt8(ascii: "0") + UInt8(ms % 10))
        line.append(UInt8(ascii: "Z"))
    }
}
