import CCurl

/// An HTTP date (RFC 9110 §5.6.7: the IMF-fixdate `Wed, 21 Oct 2099 07:28:00 GMT`, and the
/// obsolete RFC 850 and asctime forms a recipient must still read), read by libcurl's
/// `curl_getdate`, the parser curl itself trusts with `Retry-After` and cookies' `expires`, so
/// buttond keeps no calendar code of its own.
public enum HTTPDate {
    /// Seconds since the epoch; nil when libcurl reads no date in `text`.
    public static func epochSeconds(_ text: String) -> Int64? {
        let seconds = curl_getdate(text, nil)
        return seconds == -1 ? nil : Int64(seconds)
    }
}
