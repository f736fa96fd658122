import ButtonStore
import CProcessShims
import FoundationEssentials
import Platform
import Dispatch

/// Runs one script attempt: `posix_spawn` (no shell) in its own process group, the event JSON
/// on stdin, a clean environment, at most 64 KiB of stdout and of stderr kept, and on timeout
/// SIGTERM to the whole group, then SIGKILL two seconds later.
public enum ScriptRunner {
    public static let outputCap = 64 * 1024
    static let killGraceMs: Int64 = 2000

    public struct Finished: Sendable {
        public var result: AttemptResult
        public var stdout: [UInt8]
        public var stderr: [UInt8]
    }

    /// The clean environment of SPEC §5.
    public static func environment(event: [UInt8], type: String, button: String, seq: Int64, attempt: Int) -> [String] {
        [
            "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + (ProcessInfo.processInfo.environment["HOME"] ?? "/"),
            "LANG=C.UTF-8", "BUTTOND_EVENT=" + String(decoding: event, as: UTF8.self), "BUTTOND_TYPE=" + type,
            "BUTTOND_BUTTON=" + button, "BUTTOND_SEQ=" + String(seq), "BUTTOND_ATTEMPT=" + String(attempt),
        ]
    }

    private static func monotonicMs() -> Int64 { SystemClock.monotonicMilliseconds() }

    public static func run(
        _ script: Handler.Script, in directory: String, arguments: [String], environment: [String], stdin input: [UInt8]
    ) -> Finished {
        let path = directory + "/" + script.name
        // Checked again before every run: a file swapped for a symlink (or made
        // non-executable) since registration must not run.
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(path, X_OK) == 0 else {
            let message = "not run: \(script.name) is no longer a regular executable file in the scripts directory"
            return Finished(result: AttemptResult(outcome: .refused, output: message), stdout: [], stderr: Array(message.utf8))
        }
        var stdinPipe: [Int32] = [0, 0]
        var stdoutPipe: [Int32] = [0, 0]
        var stderrPipe: [Int32] = [0, 0]
        guard bd_pipe_cloexec(&stdinPipe) == 0 else { return failed("cannot create a pipe") }
        guard bd_pipe_cloexec(&stdoutPipe) == 0 else {
            closeAll(stdinPipe)
            return failed("cannot create a pipe")
        }
        guard bd_pipe_cloexec(&stderrPipe) == 0 else {
            closeAll(stdinPipe + stdoutPipe)
            return failed("cannot create a pipe")
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderrPipe[1], 2)
        bd_spawn_file_actions_addchdir(&actions, directory)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Own process group; default signal handling (the server ignores SIGPIPE) and no mask.
        var defaults = sigset_t()
        sigfillset(&defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = [path] + arguments
        var pid: pid_t = 0
        let spawned = withCStrings(argv) { argvPointers in
            withCStrings(environment) { envPointers in
                posix_spawn(&pid, path, &actions, &attributes, argvPointers, envPointers)
            }
        }
        close(stdinPipe[0])
        close(stdoutPipe[1])
        close(stderrPipe[1])
        guard spawned == 0 else {
            closeAll([stdinPipe[1], stdoutPipe[0], stderrPipe[0]])
            return failed("cannot start \(script.name): \(String(cString: strerror(spawned)))")
        }

        let started = monotonicMs()
        // The event is small; write it without blocking and close, so the script sees EOF.
        _ = fcntl(stdinPipe[1], F_SETFL, fcntl(stdinPipe[1], F_GETFL) | O_NONBLOCK)
        _ = input.withUnsafeBytes { write(stdinPipe[1], $0.baseAddress, $0.count) }
        close(stdinPipe[1])

        var out: [UInt8] = []
        var err: [UInt8] = []
        var open: [Int32] = [stdoutPipe[0], stderrPipe[0]]
        var status: Int32 = 0
        var exited = false
        var exitedAt: Int64 = 0
        var termSentAt: Int64?
        var killed = false
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let now = monotonicMs()
            if !exited, waitpid(pid, &status, WNOHANG) == pid {
                exited = true
                exitedAt = now
            }
            if exited && (open.isEmpty || now - exitedAt > 100) { break }
            if termSentAt == nil, now - started >= Int64(script.timeoutMs) {
                kill(-pid, SIGTERM)
                termSentAt = now
            }
            if let termSentAt, !killed, now - termSentAt >= killGraceMs {
                kill(-pid, SIGKILL)
                killed = true
            }
            if killed && exited { break }
            if open.isEmpty {
                // Output closed; the process is exiting (or holds on without output): look again soon.
                usleep(500)
                continue
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 50)
            for entry in fds where entry.revents != 0 {
                let n = read(entry.fd, &chunk, chunk.count)
                if n <= 0 {
                    close(entry.fd)
                    open.removeAll { $0 == entry.fd }
                    continue
                }
                if entry.fd == stdoutPipe[0] {
                    out.append(contentsOf: chunk[0..<min(n, max(0, outputCap - out.count))])
                } else {
                    err.append(contentsOf: chunk[0..<min(n, max(0, outputCap - err.count))])
                }
            }
        }
        for fd in open { close(fd) }
        if let termSentAt, !killed, kill(-pid, 0) == 0 {
            // The rest of the group gets the same grace after SIGTERM, then SIGKILL: nothing of
            // it may outlive a timeout.
            let wait = termSentAt + killGraceMs - monotonicMs()
            if wait > 0 { usleep(useconds_t(wait * 1000)) }
            kill(-pid, SIGKILL)
        }
        if !exited { waitpid(pid, &status, 0) }
        if termSentAt == nil {
            // The script exited: what it left running in its group is stopped too (a script
            // that wants a daemon must setsid it away).
            kill(-pid, SIGTERM)
        }

        var result: AttemptResult
        let output = AttemptResult.text(out + err)
        if termSentAt != nil {
            result = AttemptResult(outcome: .timeout, output: output)
        } else if status & 0x7f == 0 {
            let code = Int((status >> 8) & 0xff)
            result = AttemptResult(outcome: code == 0 ? .ok : .exitCode, exitCode: code, output: output)
        } else {
            result = AttemptResult(outcome: .signal, exitCode: Int(status & 0x7f), output: output)
        }
        result.durationMs = monotonicMs() - started
        return Finished(result: result, stdout: out, stderr: err)
    }

    private static func failed(_ message: String) -> Finished {
        Finished(result: AttemptResult(outcome: .exitCode, exitCode: 127, output: message), stdout: [], stderr: Array(message.utf8))
    }

    private static func closeAll(_ fds: [Int32]) { for fd in fds { close(fd) } }

    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
