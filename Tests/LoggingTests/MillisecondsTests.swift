import Testing

@testable import Logging

/// The request line's `duration_ms`, written as bytes, reads as the interpolation it replaced.
@Suite struct MillisecondsTests {
    @Test(arguments: [0, 1, 5, 10, 999, 1000, 1001, 12_034, 999_999, 1_000_000, 1_234_567_890])
    func durationsAreMillisecondsWithThreeDecimals(micros: Int) {
        #expect(LogLine.milliseconds(micros: micros) == "\(micros / 1000).\(String(micros % 1000 + 1000).dropFirst())")
    }
}
