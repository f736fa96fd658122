import Glibc
import Platform
import Testing

@testable import Logging

/// The log cannot be used to drive a terminal: controls in logged values are escaped.
@Suite struct LoggerTests {
    @Test func controlCharactersAreEscapedInLogfmt() {
        #expect(Logger.quote("/c\u{1B}[31mred") == #""/c\u001b[31mred""#)
        #expect(Logger.quote("a\u{7F}b") == #""a\u007fb""#)
        #expect(Logger.quote("plain") == "plain")
        #expect(!Logger.quote("tab\there").contains("\t"))
        // C1 controls (CSI, NEL) and the Unicode line separator, raw in UTF-8, act on terminals too
        #expect(Logger.quote("/c1\u{9B}31mX\u{85}Y\u{2028}Z") == #""/c1\u009b31mX\u0085Y\u2028Z""#)
        #expect(Logger.jsonString("\u{9B}") == #""\u009b""#)
        #expect(Logger.quote("21.5 °C") == #""21.5 °C""#, "other non-ASCII stays as it is")
    }

    /// The bytewise test for ASCII values decides as the scalar test it shortcuts: every
    /// character below U+0300, alone and inside a word.
    @Test func plainValuesAreDecidedAsByTheirScalars() {
        func scalarsSayPlain(_ value: String) -> Bool {
            !value.isEmpty && !value.unicodeScalars.contains { c in
                c == " " || c == "\"" || c == "=" || c == "\\" || Logger.isControl(c) || c.properties.isWhitespace
            }
        }
        for code in UInt32(0)..<0x300 {
            guard let scalar = Unicode.Scalar(code) else { continue }
            for value in [String(Character(scalar)), "a\(Character(scalar))b"] {
                #expect(Logger.isPlain(value) == scalarsSayPlain(value), "U+\(String(code, radix: 16))")
            }
            // At each place of the first two words the check reads eight bytes at a time, and
            // in the bytes left after them.
            for offset in 0..<19 {
                let value = String(repeating: "a", count: offset) + String(Character(scalar)) + "/api/v1/x"
                guard Logger.isPlain(value) != scalarsSayPlain(value) else { continue }
                Issue.record("U+\(String(code, radix: 16)) after \(offset) bytes")
            }
        }
        #expect(!Logger.isPlain(""))
        #expect(Logger.isPlain("/api/v1/buttons/b7/press"))
        #expect(!Logger.isPlain("a\u{2028}b"))
        #expect(!Logger.isPlain("a\u{3000}b"), "ideographic space")
    }

    /// A whole line as `Logger.log` writes it (message `m`, level info), built in a buffer of
    /// `room` bytes: one smaller than the line makes it move to the heap, as a long one does.
    static func line(
        _ format: Logger.Format = .logfmt, at milliseconds: Int64 = 0, time: LineTime = LineTime(), room: Int = 1024,
        _ fields: (inout LogLine) -> Void = { _ in }
    ) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { buffer in
            var line = LogLine(buffer: buffer, format: format, at: milliseconds, level: .info, message: "m", lineTime: time)
            fields(&line)
            return line.finished { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// A line's time is the timestamp's text, whether its second was formatted for an earlier
    /// line (kept) or not (made again): across second boundaries, backwards, and before 1970.
    @Test func lineTimesAreTheTimestampText() {
        let second: Int64 = 1_764_662_400_000
        let time = LineTime()
        for milliseconds in [second, second + 1, second + 999, second + 1000, second + 500, second - 1, 0, -1, 253_402_300_799_999] {
            let iso = String(decoding: Timestamp.iso8601Bytes(milliseconds: milliseconds), as: UTF8.self)
            #expect(Self.line(at: milliseconds, time: time) == "ts=\(iso) level=info msg=m\n", "\(milliseconds)")
        }
    }

    /// Values are copied, quoted or escaped as `quote` (logfmt) and `jsonString` (JSON) say,
    /// whichever way the line takes, in a line that fits its buffer and in one that outgrows it.
    @Test func fieldsAreTheirQuotedText() {
        let long = String(repeating: "x", count: 3000)
        for value in ["", "plain", "/api/v1/buttons/b7/press", "a b", "a=b", "q\"", "back\\slash", "tab\t", "21.5 °C", "grün", "a\u{2028}b", "x\u{7F}", long] {
            for room in [1024, 8] {
                let logfmt = Self.line(room: room) { $0.field("k", value) }
                #expect(logfmt == "ts=1970-01-01T00:00:00.000Z level=info msg=m k=\(Logger.quote(value))\n", "\(value.prefix(20)) \(room)")
                let json = Self.line(.json, room: room) { $0.field("k", value) }
                #expect(
                    json == #"{"ts":"1970-01-01T00:00:00.000Z","level":"info","msg":"m","k":"# + Logger.jsonString(value) + "}\n",
                    "\(value.prefix(20)) \(room)")
            }
        }
    }

    /// A key made at run time (`field(named:)`) is written as a constant key is in logfmt, and
    /// escaped as a JSON string in JSON, so a key with a quote cannot break the line's JSON.
    @Test func keysMadeAtRunTimeAreWrittenAsConstantOnesAre() {
        for key in ["k", "a_b", #"q"k"#, "back\\slash"] {
            let logfmt = Self.line { $0.field(named: key, "v") }
            #expect(logfmt == "ts=1970-01-01T00:00:00.000Z level=info msg=m \(key)=v\n", "\(key)")
            let json = Self.line(.json) { $0.field(named: key, "v") }
            #expect(json == #"{"ts":"1970-01-01T00:00:00.000Z","level":"info","msg":"m","# + Logger.jsonString(key) + #":"v"}"# + "\n", "\(key)")
        }
        #expect(Self.line { $0.field(named: "k", "v") } == Self.line { $0.field("k", "v") })
        #expect(Self.line(.json) { $0.field(named: "k", "v") } == Self.line(.json) { $0.field("k", "v") })
    }

    /// Request lines gathered for a later write still come out in order: before a line written
    /// at once that follows them, and on their own once the gathering thread writes them.
    @Test func gatheredLinesKeepTheirOrder() {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let output = LogOutput(fd: ends[1])
        func read(_ count: Int) -> String {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 256)
            while bytes.count < count {
                let n = Glibc.read(ends[0], &buffer, min(buffer.count, count - bytes.count))
                guard n > 0 else { break }
                bytes += buffer[..<n]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        output.gather("a\n")
        output.gather("b\n")
        output.write("c\n")
        #expect(read(6) == "a\nb\nc\n")
        output.gather("d\n")
        output.gather("e\n")
        #expect(read(4) == "d\ne\n")
    }

    /// What an operator reads: lines at or above the level (or forced), as logfmt or JSON
    /// lines, each with its time, level, message and fields.
    @Test func linesAtTheLevelAreWrittenInTheFormatAsked() throws {
        let marker = "marker-\(UInt64.random(in: 0...UInt64.max))"
        let lines = try Self.stderrLines(containing: marker) {
            // Each line's time is the clock's it was given.
            let logfmt = Logger(level: .warn, format: .logfmt, clock: Clock { 1_700_000_000_123 })
            logfmt.log(.info, "dropped \(marker)")
            logfmt.log(.warn, "kept \(marker)", ["button": "door", "why": "a b"])
            logfmt.log(.debug, "forced \(marker)", force: true)
            Logger(level: .info, format: .json, clock: .system).log(.error, "json \(marker)", ["n": "1"])
        }
        try #require(lines.count == 3, "\(lines)")
        #expect(lines[0].hasPrefix("ts=2023-11-14T22:13:20.123Z ") && lines[0].hasSuffix(#"level=warn msg="kept \#(marker)" button=door why="a b""#))
        #expect(lines[1].hasPrefix("ts=2023-11-14T22:13:20.123Z ") && lines[1].contains("level=debug") && lines[1].contains("forced"))
        #expect(lines[2].hasPrefix(#"{"ts":""#) && lines[2].hasSuffix(#","level":"error","msg":"json \#(marker)","n":"1"}"#))
        #expect(Logger.Level.debug < .info && .info < .warn && .warn < .error)
    }

    /// Runs `body` with stderr going to a pipe, and returns the lines written that hold `marker`
    /// (other tests in this process may write meanwhile).
    static func stderrLines(containing marker: String, _ body: () -> Void) throws -> [String] {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let saved = dup(2)
        dup2(fds[1], 2)
        body()
        dup2(saved, 2)
        close(saved)
        close(fds[1])
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        close(fds[0])
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init).filter { $0.contains(marker) }
    }
}
