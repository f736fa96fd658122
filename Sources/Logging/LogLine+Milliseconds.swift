extension LogLine {
    /// A request line's `duration_ms`: `micros` (never negative) as milliseconds with three
    /// decimals, `12.034`. Written as bytes: interpolating the parts cost a press more than
    /// the rest of its log line's fields together.
    package static func milliseconds(micros: Int) -> String {
        String(unsafeUninitializedCapacity: maxMillisecondsLength) { writeMilliseconds(micros: micros, into: $0) }
    }

    /// Adds ` key=12.034` (`micros` as milliseconds, as `milliseconds(micros:)` writes them), or
    /// `,"key":"12.034"` in JSON, without making a string of them first.
    public mutating func field(_ key: StaticString, milliseconds micros: Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maxMillisecondsLength) { text in
            let length = Self.writeMilliseconds(micros: micros, into: text)
            field(key, plain: UnsafeBufferPointer(rebasing: text[..<length]))
        }
    }

    /// Adds ` key=200` (a decimal integer), or `,"key":"200"` in JSON, without a string.
    public mutating func field(_ key: StaticString, integer value: Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { text in
            var length = 0
            var magnitude = value.magnitude
            repeat {
                text[length] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                length += 1
            } while magnitude > 0
            if value < 0 {
                text[length] = UInt8(ascii: "-")
                length += 1
            }
            var digits = UnsafeMutableBufferPointer(rebasing: text[..<length])
            digits.reverse()
            field(key, plain: UnsafeBufferPointer(digits))
        }
    }

    /// The most bytes a duration takes: `Int.max` microseconds' 16 digits of milliseconds, a
    /// point and three decimals.
    static let maxMillisecondsLength = 20

    /// `micros` (never negative) as milliseconds with three decimals at the start of `text`;
    /// how many bytes that took.
    private static func writeMilliseconds(micros: Int, into text: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let whole = micros / 1000
        var digits = 1
        var rest = whole
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        var value = whole
        for index in (0..<digits).reversed() {
            text[index] = UInt8(ascii: "0") + UInt8(value % 10)
            value /= 10
        }
        let fraction = micros % 1000
        text[digits] = UInt8(ascii: ".")
        text[digits + 1] = UInt8(ascii: "0") + UInt8(fraction / 100)
        text[digits + 2] = UInt8(ascii: "0") + UInt8(fraction / 10 % 10)
        text[digits + 3] = UInt8(ascii: "0") + UInt8(fraction % 10)
        return digits + 4
    }
}
