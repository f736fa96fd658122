// The one file that names the C library; every other file imports Platform. What the code
// needs of the OS beyond plain calls (clocks, writing a whole buffer) is here too.

#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#elseif canImport(Darwin)
@_exported import Darwin
#endif

/// The OS's clocks.
public enum SystemClock {
    /// Seconds on the monotonic clock (for timeouts and deadlines; not a date).
    public static func monotonicSeconds() -> Double {
        let time = read(CLOCK_MONOTONIC)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Milliseconds on the monotonic clock.
    public static func monotonicMilliseconds() -> Int64 {
        let time = read(CLOCK_MONOTONIC)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// Now, in Unix epoch milliseconds.
    public static func wallMilliseconds() -> Int64 {
        let time = read(CLOCK_REALTIME)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// Now, in Unix epoch milliseconds with their fraction.
    public static func preciseWallMilliseconds() -> Double {
        let time = read(CLOCK_REALTIME)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
    }

    private static func read(_ clock: clockid_t) -> timespec {
        var time = timespec()
        clock_gettime(clock, &time)
        return time
    }
}

/// Writes all of `bytes` to `fd` (retrying short writes); gives up quietly when the
/// descriptor is gone.
public func writeAll(_ fd: Int32, _ bytes: some Sequence<UInt8>) {
    let buffer = Array(bytes)
    var offset = 0
    while offset < buffer.count {
        let written = buffer[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { return }
        offset += written
    }
}

/// Limits the OS puts on this process.
public enum SystemLimits {
    /// Raises the soft limit on open files to `wanted`, as far as the hard limit allows.
    public static func allowOpenFiles(_ wanted: Int) {
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(wanted) else { return }
        limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
        setrlimit(resource, &limit)
    }
}
