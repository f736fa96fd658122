import CurlHTTP

/// A receiver's `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP date
/// (`Wed, 21 Oct 2099 07:28:00 GMT`, also the obsolete RFC 850 and asctime forms), as
/// seconds from `now`, capped at an hour (SPEC §5). A date in the past means "now". The date
/// is libcurl's to read (`HTTPDate`).
public enum RetryAfter {
    public static let maximumSeconds = 3600

    /// `nil` when the value is neither form.
    public static func seconds(_ value: String, nowMilliseconds now: Int64) -> Int? {
        let text = String(value.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        if let seconds = Int(text) { return seconds < 0 ? nil : min(seconds, maximumSeconds) }
        guard let date = HTTPDate.epochSeconds(text) else { return nil }
        let wait = date - now / 1000
        return Int(min(max(wait, 0), Int64(maximumSeconds)))
    }
}
