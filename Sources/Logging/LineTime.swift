import ThreadSupport
import Platform

/// The time at the head of a log line, `YYYY-MM-DDTHH:MM:SS.mmmZ`. All but the milliseconds is
/// kept from the last line in the same second (`ISO8601Cache`, shared by the request threads
/// behind a lock), so a busy server works out the date once a second rather than for every
/// request's line (it was a tenth of the line's cost). Each `Logger` has its own.
final class LineTime: Sendable {
    private let last = Locked(ISO8601Cache())

    /// Appends `Timestamp.iso8601(milliseconds:)`'s text for `milliseconds` to `line`.
    func append(_ milliseconds: Int64, to line: inout LogLine) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Timestamp.iso8601Length) { buffer in
            last.withLock { $0.iso8601(milliseconds: milliseconds, into: buffer) }
            line.put(UnsafeBufferPointer(buffer))
        }
    }
}
