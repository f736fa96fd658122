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

    /// What an operator reads: lines at or above the level (or forced), as logfmt or JSON
    /// lines, each with its time, level, message and fields.
    @Test func linesAtTheLevelAreWrittenInTheFormatAsked() throws {
        let marker = "marker-\(UInt64.random(in: 0...UInt64.max))"
        let lines = try Self.stderrLines(containing: marker) {
            let logfmt = Logger(level: .warn, format: .logfmt)
            logfmt.log(.info, "dropped \(marker)")
            logfmt.log(.warn, "kept \(marker)", ["button": "door", "why": "a b"])
            logfmt.log(.debug, "forced \(marker)", force: true)
            Logger(level: .info, format: .json).log(.error, "json \(marker)", ["n": "1"])
        }
        try #require(lines.count == 3, "\(lines)")
        #expect(lines[0].hasPrefix("ts=") && lines[0].hasSuffix(#"level=warn msg="kept \#(marker)" button=door why="a b""#))
        #expect(lines[1].contains("level=debug") && lines[1].contains("forced"))
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
