import Foundation
import Platform
import Synchronization
import Testing

/// The OS calls behind Swift names: the clocks go the way time goes, a whole buffer is
/// written however the kernel splits it, and a timestamp reads as the ISO-8601 a client parses.
@Suite struct SystemTests {
    @Test func theMonotonicClockNeverGoesBackAndCountsSleeps() {
        let start = Clock.system.monotonicMilliseconds()
        let startSeconds = Clock.system.monotonic()
        usleep(50_000)
        let elapsed = Clock.system.monotonicMilliseconds() - start
        #expect(elapsed >= 50 && elapsed < 5_000, "\(elapsed) ms")
        #expect(Clock.system.monotonic() - startSeconds >= 0.05)
    }

    @Test func theWallClockIsNowSinceTheEpoch() {
        let foundation = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(abs(Clock.system.now() - foundation) < 1_000)
        #expect(abs(Clock.system.precise() - Double(foundation)) < 1_000)
    }

    /// A clock of a test's own: the precise and monotonic readings follow the wall time it
    /// is given, so moving it moves every deadline measured on it.
    @Test func aClockOfOnesOwnMovesEveryReading() {
        final class Time: Sendable { let ms = Atomic<Int64>(5_000) }
        let time = Time()
        let clock = Clock { time.ms.load(ordering: .relaxed) }
        #expect(clock.now() == 5_000)
        #expect(clock.precise() == 5_000)
        #expect(clock.monotonic() == 5)
        #expect(clock.monotonicMilliseconds() == 5_000)
        time.ms.store(7_250, ordering: .relaxed)
        #expect(clock.now() == 7_250)
        #expect(clock.monotonicMilliseconds() == 7_250)
        let given = Clock(now: { 1 }, precise: { 1.5 }, monotonic: { 42.0 })
        #expect(given.precise() == 1.5)
        #expect(given.monotonic() == 42)
        #expect(given.monotonicMilliseconds() == 42_000)
    }

    /// More than a pipe holds (64 KiB on Linux): the writer must go on after short writes.
    @Test func aWholeBufferIsWrittenPastWhatAPipeHoldsAtOnce() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let bytes = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let input = fds[1]
        let writer = Thread {
            writeAll(input, bytes)
            close(input)
        }
        writer.start()
        var read: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fds[0], $0.baseAddress, $0.count) }
            if n <= 0 { break }
            read += buffer[0..<n]
        }
        close(fds[0])
        #expect(read == bytes)
    }

    @Test func aClosedDescriptorIsGivenUpQuietly() {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        signal(SIGPIPE, SIG_IGN)
        #expect(writeAll(fds[1], [1, 2, 3]))
        close(fds[0])
        #expect(!writeAll(fds[1], [4, 5, 6]))  // gives up (EPIPE) rather than spinning
        close(fds[1])
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (1_700_000_000_123, "2023-11-14T22:13:20.123Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
    ])
    func aTimestampIsISO8601InUTC(milliseconds: Int64, text: String) {
        #expect(Timestamp.iso8601(milliseconds: milliseconds) == text)
        #expect(Timestamp.iso8601Bytes(milliseconds: milliseconds) == Array(text.utf8))
    }

    /// The cache keeps one second's text: every time through it, in any order (the same
    /// second, the next, a day or a year later, back before the epoch), reads as it alone would.
    @Test func aTimestampThroughTheCacheIsTheSame() {
        var cache = ISO8601Cache()
        let times: [Int64] = [
            0, 1, 999, 1_000, 1_001, 59_999, 60_000, 86_399_999, 86_400_000, 86_400_000, 86_400_999, 86_401_000,
            1_700_000_000_123, 1_700_000_000_999, 1_700_000_001_000, 1_704_067_199_999, 1_704_067_200_000, 951_782_399_999,
            951_782_400_000, -1, -999, -1_000, -1_001, -86_400_000, -86_400_001, 253_402_300_799_999, 0, -1,
        ]
        for milliseconds in times {
            let bytes = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Timestamp.iso8601Length) { buffer in
                cache.iso8601(milliseconds: milliseconds, into: buffer)
                return Array(buffer)
            }
            #expect(bytes == Timestamp.iso8601Bytes(milliseconds: milliseconds), "\(milliseconds)")
        }
    }

    /// What a log line and an SQLite parameter are built from: a string's own UTF-8 bytes,
    /// small (stored inline) or large, ASCII or not, and a substring's copy.
    @Test func aStringLendsItsUTF8BytesWhateverItHolds() {
        let large = String(repeating: "button-é-🔔 ", count: 40)
        for text in ["", "b0", "Front door", "café ON AIR", "🔔", large, String(large.dropFirst(3).prefix(50))] {
            #expect(text.withUTF8Bytes { Array($0) } == Array(text.utf8), "\(text)")
        }
    }
}
