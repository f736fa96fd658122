import CurlHTTP
import Foundation

/// The real `buttond` binary as a child process (crash, signal and CLI tests).
public final class ServerProcess: @unchecked Sendable {  // fields are set once in init
    public let pid: pid_t
    public let port: Int
    public let stderrPath: String

    public static var binary: String {
        ProcessInfo.processInfo.environment["BUTTOND_BIN"] ?? repositoryRoot + "/.build/debug/buttond"
    }

    public static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// Starts `buttond serve --port 0 ARGS` and waits (bounded) for its listening line.
    public init(dataDir: String, arguments: [String] = []) throws {
        stderrPath = dataDir + ".stderr-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let argv = [Self.binary, "serve", "--port", "0", "--data-dir", dataDir, "--public-dir", Self.repositoryRoot + "/public"] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        let result = posix_spawn(&pid, argv[0], &actions, nil, cArgs, environ)
        guard result == 0 else { throw HTTPClient.Failure(description: "cannot start \(argv[0]): \(result)") }
        self.pid = pid
        let deadline = Date().addingTimeInterval(30)
        var found: Int?
        while found == nil && Date() < deadline {
            let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            if let range = text.range(of: "msg=listening url=http://") {
                let address = text[range.upperBound...].prefix { $0 != "/" }
                found = address.split(separator: ":").last.flatMap { Int($0) }
            } else {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid { throw HTTPClient.Failure(description: "buttond exited: \(text)") }
                usleep(20_000)
            }
        }
        guard let found else {
            kill(pid, SIGKILL)
            throw HTTPClient.Failure(description: "buttond did not start")
        }
        port = found
    }

    public var client: HTTPClient { HTTPClient(port: port) }
    public var url: String { "http://127.0.0.1:\(port)" }
    public var log: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Sends `signal` and waits (bounded) for the exit status; nil if it did not exit in time.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM, within seconds: Double = 15) -> Int32? {
        kill(pid, signal)
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid { return status }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return nil
    }

    deinit {
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == 0 {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
    }
}

/// Runs `buttond ARGS` to completion (client commands); returns exit code, stdout, stderr.
public func runButtond(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> (Int32, String, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ServerProcess.binary)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    if stdin != nil { process.standardInput = input }
    try process.run()
    if let stdin {
        input.fileHandleForWriting.write(Data(stdin.utf8))
        try input.fileHandleForWriting.close()
    }
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}
