import CurlHTTP
import Testing

/// HTTP dates as libcurl reads them: RFC 9110's three forms to the second, anything else nil.
@Suite struct HTTPDateTests {
    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),  // IMF-fixdate
        ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),  // RFC 850
        ("Sun Nov  6 08:49:37 1994", 784_111_777),  // asctime
        ("Mon, 30 Nov 2026 12:00:30 GMT", 1_796_040_030),
        ("Wed, 21 Oct 2099 07:28:00 GMT", 4_096_250_880),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
    ] as [(String, Int64)])
    func theThreeForms(_ text: String, _ seconds: Int64) {
        #expect(HTTPDate.epochSeconds(text) == seconds)
    }

    @Test(arguments: [
        "", "soon", "1.5", "2026", "Mon, 32 Nov 2026 12:00:00 GMT", "Mon, 30 Foo 2026 12:00:00 GMT", "Mon, 30 Nov 2026 25:00:00 GMT",
    ])
    func notADate(_ text: String) {
        #expect(HTTPDate.epochSeconds(text) == nil)
    }
}
