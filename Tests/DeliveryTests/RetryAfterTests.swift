import Delivery
import Testing

/// `Retry-After` as seconds or as an HTTP date, capped at an hour (SPEC §5).
@Suite struct RetryAfterTests {
    /// 2026-11-30T12:00:00Z.
    static let now: Int64 = 1_796_040_000_000

    @Test(arguments: [
        ("120", 120),
        (" 5 ", 5),
        ("0", 0),
        ("86400", 3600),  // capped at an hour
        ("Mon, 30 Nov 2026 12:00:30 GMT", 30),  // IMF-fixdate
        ("Mon, 30 Nov 2026 12:10:00 GMT", 600),
        ("Monday, 30-Nov-26 12:00:45 GMT", 45),  // RFC 850
        ("Mon Nov 30 12:01:00 2026", 60),  // asctime
        ("Wed, 21 Oct 2099 07:28:00 GMT", 3600),  // far ahead: capped
        ("Sun, 06 Nov 1994 08:49:37 GMT", 0),  // in the past: now
        ("Sunday, 06-Nov-94 08:49:37 GMT", 0),  // RFC 850, in the past
        ("Sun Nov  6 08:49:37 1994", 0),  // asctime (a day padded with a space), in the past
    ])
    func understood(_ value: String, _ seconds: Int) {
        #expect(RetryAfter.seconds(value, nowMilliseconds: Self.now) == seconds)
    }

    @Test(arguments: [
        "", "soon", "-5", "1.5", "Mon, 32 Nov 2026 12:00:00 GMT", "Mon, 30 Foo 2026 12:00:00 GMT",
        "Mon, 30 Nov 2026 25:00:00 GMT",
    ])
    func notUnderstood(_ value: String) {
        #expect(RetryAfter.seconds(value, nowMilliseconds: Self.now) == nil)
    }
}
