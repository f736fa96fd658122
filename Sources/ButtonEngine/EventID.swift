import JSON

/// An event's id: its run's prefix, then its seq in base 36 (what `prefix + String(seq, radix:
/// 36)` gives). The sequencer writes it straight into each event's JSON; a string is made only
/// when one is asked for (a webhook's row, a history row of another run).
public enum EventID {
    /// The most characters a seq takes in base 36: a sign and the 13 digits of `Int64.max`.
    public static let maxSeqLength = 14

    /// The id as a string, written into one: no intermediate string for the digits.
    public static func string(prefix: String, seq: Int64) -> String {
        String(unsafeUninitializedCapacity: prefix.utf8.count + maxSeqLength) { out in
            let count = out.initialize(from: prefix.utf8).index
            return count + digits(seq, into: UnsafeMutableBufferPointer(rebasing: out[count...]))
        }
    }

    /// The id as a JSON string, into `cursor`: at most `bound(prefix:)` bytes.
    public static func write(prefix: String, seq: Int64, into cursor: inout JSONCursor) {
        cursor.string(prefix, maxSuffix: maxSeqLength) { digits(seq, into: $0) }
    }

    /// Most bytes `write` takes for `prefix`.
    public static func bound(prefix: String) -> Int { JSONCursor.bound(of: prefix) + maxSeqLength }

    /// `seq` in base 36 (lower-case letters) at the start of `out`, which has room for
    /// `maxSeqLength` bytes; how many it wrote.
    static func digits(_ seq: Int64, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var count = 0
        if seq < 0 {
            out[0] = UInt8(ascii: "-")
            count = 1
        }
        var length = 1
        var rest = seq.magnitude / 36
        while rest > 0 {
            length += 1
            rest /= 36
        }
        var magnitude = seq.magnitude
        for index in (count..<(count + length)).reversed() {
            let digit = UInt8(magnitude % 36)
            out[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
            magnitude /= 36
        }
        return count + length
    }
}
