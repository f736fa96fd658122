import Outbox
import CProcessShims
import FoundationEssentials
import Platform
import Dispatch

/// Runs one script attempt: `posix_spawn` (no shell) in its own process group, the event JSON
/// on stdin, a clean environment, at most 64 KiB of stdout and of stderr kept, and on timeout
/// SIGTERM to the whole group, then SIGKILL two seconds later. What is left in the group when
/// the script ends is `groups`' to stop.
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

    public static func run(
        _ script: ScriptAction, in directory: String, arguments: [String], environment: [String], stdin input: [UInt8],
        groups: ScriptGroups
    ) -> Finished {
        let path = directory + "/" + script.name
        // Checked again before every run: a file swapped for a symlink (or made
        // non-executable) since registration must not run.
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(path, X_OK) == 0 else {
            let message = "not run: \(script.name) is no longer a regular executable file in the scripts directory"
            return Finished(result: AttemptResult(outcome: .refused, output: message), stdout: [], stderr: Array(message.utf8))
        }
        let child: Child
        switch Child.spawn(path, arguments: arguments, environment: environment, in: directory) {
        case .success(let spawned): child = spawned
        case .failure(let failure): return failed(failure.message(script.name))
        }
        groups.started(child.pid)
        let clock = groups.clock
        let started = clock.monotonicMilliseconds()
        child.feed(input)
        let ending = child.watch(timeoutMs: Int64(script.timeoutMs), started: started, clock: clock)
        groups.ended(child.pid, termSentAt: ending.termSentAt)

        var result: AttemptResult
        let output = AttemptResult.text(ending.stdout + ending.stderr)
        let status = ending.status
        if ending.timedOut {
            result = AttemptResult(outcome: .timeout, output: output)
        } else if status & 0x7f == 0 {
            let code = Int((status >> 8) & 0xff)
            result = AttemptResult(outcome: code == 0 ? .ok : .exitCode, exitCode: code, output: output)
        } else {
            result = AttemptResult(outcome: .signal, exitCode: Int(status & 0x7f), output: output)
        }
        result.durationMs = clock.monotonicMilliseconds() - started
        return Finished(result: result, stdout: ending.stdout, stderr: ending.stderr)
    }

    /// A started script: its process (leading its own group) and our ends of its pipes.
    struct Child {
        let pid: pid_t
        let stdin: Int32
        let stdout: Int32
        let stderr: Int32

        enum SpawnFailure: Error {
            case pipe
            case spawn(Int32)

            func message(_ name: String) -> String {
                switch self {
                case .pipe: "cannot create a pipe"
                case .spawn(let code): "cannot start \(name): \(String(cString: strerror(code)))"
                }
            }
        }

        /// How the script ended: its wait status, what it wrote, and whether it ran out of time.
        struct Ending {
            var status: Int32 = 0
            var stdout: [UInt8] = []
            var stderr: [UInt8] = []
            /// When its timeout sent SIGTERM to the group (monotonic milliseconds).
            var termSentAt: Int64?
            var timedOut: Bool { termSentAt != nil }
        }

        /// `posix_spawn` (no shell) in `directory`, in a process group of its own, with the
        /// default signal handling (the server ignores SIGPIPE) and no signal mask.
        static func spawn(
            _ path: String, arguments: [String], environment: [String], in directory: String
        ) -> Result<Child, SpawnFailure> {
            var stdinPipe: [Int32] = [0, 0]
            var stdoutPipe: [Int32] = [0, 0]
            var stderrPipe: [Int32] = [0, 0]
            guard bd_pipe_cloexec(&stdinPipe) == 0 else { return .failure(.pipe) }
            guard bd_pipe_cloexec(&stdoutPipe) == 0 else {
                closeAll(stdinPipe)
                return .failure(.pipe)
            }
            guard bd_pipe_cloexec(&stderrPipe) == 0 else {
                closeAll(stdinPipe + stdoutPipe)
                return .failure(.pipe)
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
            var defaults = sigset_t()
            sigfillset(&defaults)
            var empty = sigset_t()
            sigemptyset(&empty)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setsigmask(&attributes, &empty)
            posix_spawnattr_setpgroup(&attributes, 0)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

            var pid: pid_t = 0
            var spawned: Int32 = 0
            // ETXTBSY: the file is open for writing somewhere, most often a descriptor another
            // thread's fork holds for a moment while the file was just written. It passes.
            for attempt in 0..<10 {
                spawned = withCStrings([path] + arguments) { argv in
                    withCStrings(environment) { env in posix_spawn(&pid, path, &actions, &attributes, argv, env) }
                }
                guard spawned == ETXTBSY, attempt < 9 else { break }
                usleep(20_000)
            }
            closeAll([stdinPipe[0], stdoutPipe[1], stderrPipe[1]])
            guard spawned == 0 else {
                closeAll([stdinPipe[1], stdoutPipe[0], stderrPipe[0]])
                return .failure(.spawn(spawned))
            }
            return .success(Child(pid: pid, stdin: stdinPipe[1], stdout: stdoutPipe[0], stderr: stderrPipe[0]))
        }

        /// The event is small: written without blocking, then stdin closes so the script sees EOF.
        func feed(_ input: [UInt8]) {
            _ = fcntl(stdin, F_SETFL, fcntl(stdin, F_GETFL) | O_NONBLOCK)
            _ = input.withUnsafeBytes { write(stdin, $0.baseAddress, $0.count) }
            close(stdin)
        }

        /// Reads its output (at most `outputCap` of each) until it exits, and reaps it; past
        /// `timeoutMs`, SIGTERM to the group and SIGKILL `killGraceMs` later if it is still
        /// there. The rest of its group is left to `ScriptGroups` (a script that wants a daemon
        /// must setsid it away).
        func watch(timeoutMs: Int64, started: Int64, clock: Clock) -> Ending {
            var ending = Ending()
            var open: [Int32] = [stdout, stderr]
            var exitedAt: Int64?
            var termSentAt: Int64?
            var killed = false
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let now = clock.monotonicMilliseconds()
                if exitedAt == nil, waitpid(pid, &ending.status, WNOHANG) == pid { exitedAt = now }
                if let exitedAt, open.isEmpty || now - exitedAt > 100 { break }
                if termSentAt == nil, now - started >= timeoutMs {
                    kill(-pid, SIGTERM)
                    termSentAt = now
                }
                if let termSentAt, !killed, now - termSentAt >= killGraceMs {
                    kill(-pid, SIGKILL)
                    killed = true
                }
                if killed && exitedAt != nil { break }
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
                    } else if entry.fd == stdout {
                        ending.stdout.append(contentsOf: chunk[0..<min(n, max(0, outputCap - ending.stdout.count))])
                    } else {
                        ending.stderr.append(contentsOf: chunk[0..<min(n, max(0, outputCap - ending.stderr.count))])
                    }
                }
            }
            closeAll(open)
            if exitedAt == nil { waitpid(pid, &ending.status, 0) }
            ending.termSentAt = termSentAt
            return ending
        }
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
