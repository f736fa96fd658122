/// Clock arithmetic that cannot trap: a client may send any `Int64` as `t`, and a deadline
/// or duration past the end of the range is clamped rather than crashing the server.
extension Int64 {
    @inline(__always)
    func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    @inline(__always)
    func saturatingSubtract(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }
}
