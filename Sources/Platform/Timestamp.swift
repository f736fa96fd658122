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

    /// Appends `YYYY-MM-DDTHH:MM:SS.mmmZ` to `out`, with no intermediate buffer (it is on the
    /// hot path: every event's `at`).
    package static func iso8601(milliseconds: Int64, into out: inout [UInt8]) {
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
        func put(_ value: Int, width: Int, then separator: UInt8) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
            out.append(separator)
        }
        put(year, width: 4, then: UInt8(ascii: "-"))
        put(month, width: 2, then: UInt8(ascii: "-"))
        put(day, width: 2, then: UInt8(ascii: "T"))
        put(secondOfDay / 3600, width: 2, then: UInt8(ascii: ":"))
        put(secondOfDay / 60 % 60, width: 2, then: UInt8(ascii: ":"))
        put(secondOfDay % 60, width: 2, then: UInt8(ascii: "."))
        put(ms, width: 3, then: UInt8(ascii: "Z"))
    }

    /// Now, in Unix epoch milliseconds with their fraction.
    package static func preciseNow() -> Double { SystemClock.preciseWallMilliseconds() }

    /// Now, in Unix epoch milliseconds.
    package static func now() -> Int64 { SystemClock.wallMilliseconds() }
}
