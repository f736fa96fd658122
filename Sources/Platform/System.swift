// The one file that names the C library; every other file imports Platform. What the code
// needs of the OS beyond plain calls (writing a whole buffer, limits, signals) is here too;
// the OS clocks are read by `Clock.system` (Clock.swift).

#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#elseif canImport(Darwin)
@_exported import Darwin
#endif

/// Writes all of `bytes` to `fd` (retrying short writes); gives up quietly when the
/// descriptor is gone. Returns whether everything was written.
@discardableResult
public func writeAll(_ fd: Int32, _ bytes: some Sequence<UInt8>) -> Bool {
    let buffer = Array(bytes)
    var offset = 0
    while offset < buffer.count {
        let written = buffer[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { return false }
        offset += written
    }
    return true
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

/// The signals a server stops or reloads on, taken by a thread that waits for them
/// (`sigwait`) rather than by a handler: blocked in every thread from the start (threads made
/// afterwards inherit the mask), so one sent at any moment — even before the waiter is ready —
/// stays pending and is never lost. Children started by `posix_spawn` set their own mask.
public enum ProcessSignals {
    /// Blocks `signals` in the calling thread, and so in every thread it makes afterwards.
    public static func block(_ signals: [Int32]) {
        var set = self.set(signals)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Waits for one of `signals` (blocked first) and returns it.
    public static func wait(_ signals: [Int32]) -> Int32 {
        var set = self.set(signals)
        var received: Int32 = 0
        while sigwait(&set, &received) != 0 {}
        return received
    }

    private static func set(_ signals: [Int32]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        return set
    }
}
