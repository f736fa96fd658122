extension LogLine {
    /// A request line's `duration_ms`: `micros` (never negative) as milliseconds with three
    /// decimals, `12.034`. Written as bytes: interpolating the parts cost a press more than
    /// the rest of its log line's fields together.
    package static func milliseconds(micros: Int) -> String {
        let whole = micros / 1000
        var digits = 1
        var rest = whole
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        return String(unsafeUninitializedCapacity: digits + 4) { text in
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
}
