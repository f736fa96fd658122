import Testing

@testable import Logging

/// The request line's `duration_ms`, written as bytes, reads as the interpolation it replaced.
@Suite struct MillisecondsTests {
    @Test(arguments: [0, 1, 5, 10, 999, 1000, 1001, 12_034, 999_999, 1_000_000, 1_234_567_890])
    func durationsAreMillisecondsWithThreeDecimals(micros: Int) {
        #expect(LogLine.milliseconds(micros: micros) == "\(micros / 1000).\(String(micros % 1000 + 1000).dropFirst())")
        // Written into a line, it is the same text the string field gives, in both formats.
        for format in Logger.Format.allCases {
            #expect(
                LoggerTests.line(format) { $0.field("d", milliseconds: micros) }
                    == LoggerTests.line(format) { $0.field("d", LogLine.milliseconds(micros: micros)) })
        }
    }

    @Test(arguments: [0, 7, 200, 404, -1, -503, Int.max, Int.min])
    func integersAreTheirDecimalText(value: Int) {
        for format in Logger.Format.allCases {
            #expect(LoggerTests.line(format) { $0.field("n", integer: value) } == LoggerTests.line(format) { $0.field("n", String(value)) })
        }
        #expect(LogLine.milliseconds(micros: .max).utf8.count <= LogLine.maxMillisecondsLength)
    }
}
