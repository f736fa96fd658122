/// A receiver's `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP date
/// (`Wed, 21 Oct 2099 07:28:00 GMT`, also the obsolete RFC 850 and asctime forms), as
/// seconds from `now`, capped at an hour (SPEC §5). A date in the past means "now".
public enum RetryAfter {
    public static let maximumSeconds = 3600

    /// `nil` when the value is neither form.
    public static func seconds(_ value: String, nowMilliseconds now: Int64) -> Int? {
        let text = String(value.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        if let seconds = Int(text) { return seconds < 0 ? nil : min(seconds, maximumSeconds) }
        guard let date = epochSeconds(httpDate: text) else { return nil }
        let wait = date - now / 1000
        return Int(min(max(wait, 0), Int64(maximumSeconds)))
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Seconds since the epoch of an HTTP date in any of its three forms, or nil.
    static func epochSeconds(httpDate text: String) -> Int64? {
        // Drop the weekday ("Wed," / "Wednesday," / "Wed"), then read the fields.
        var words = text.split(whereSeparator: { $0 == " " || $0 == "-" }).map { String($0).lowercased() }
        guard words.count >= 4 else { return nil }
        words.removeFirst()
        var day: Int?, month: Int?, year: Int?, clock: [Int]?
        for word in words where word != "gmt" {
            if let index = months.firstIndex(of: String(word.prefix(3))), word.count == 3 {
                month = index + 1
            } else if word.contains(":") {
                let parts = word.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 3 else { return nil }
                clock = parts
            } else if let number = Int(word) {
                // In all three forms the day comes before the year.
                if day == nil { day = number } else if year == nil { year = number } else { return nil }
            } else {
                return nil
            }
        }
        guard var year, let month, let day, let clock, (1...31).contains(day), clock[0] < 24, clock[1] < 60, clock[2] < 61
        else { return nil }
        if year < 100 { year += year < 70 ? 2000 : 1900 }  // RFC 850's two-digit year
        return daysFromCivil(year: year, month: month, day: day) * 86_400 + Int64(clock[0] * 3600 + clock[1] * 60 + clock[2])
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
