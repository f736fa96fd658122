import Foundation
import MicroHTTP
import CurlHTTP

/// The Python webhook sink (tests/support/webhook_sink.py) as a real process on loopback.
final class Sink: @unchecked Sendable {  // fields are set once in init
    let process = Process()
    let port: Int
    let logPath: String
    let secretPath: String

    struct Received {
        var path: String
        var n: Int
        var headers: [String: String]
        var body: [UInt8]
        var verified: Bool?
    }

    init() throws {
        let dir = NSTemporaryDirectory() + "sink-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        logPath = dir + "/log.jsonl"
        secretPath = dir + "/secret"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", TestServer.repositoryRoot + "/tests/support/webhook_sink.py", "--log", logPath, "--secret-file", secretPath]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw HTTPClient.Failure(description: "the sink did not start")
        }
        self.port = port
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func setSecret(_ secret: String) throws { try secret.write(toFile: secretPath, atomically: true, encoding: .utf8) }

    var received: [Received] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let json = try? JSONParser.parse(Array(line.utf8)), case .string(let path)? = json["path"],
                case .int(let n)? = json["n"], case .string(let body)? = json["body"], case .object(let headers)? = json["headers"]
            else { return nil }
            var verified: Bool?
            if case .bool(let v)? = json["verified"] { verified = v }
            return Received(
                path: path, n: Int(n), headers: headers.compactMapValues { if case .string(let s) = $0 { s } else { nil } },
                body: [UInt8](Data(base64Encoded: body) ?? Data()), verified: verified)
        }
    }

    /// Waits (bounded) until `condition` holds for what the sink received.
    func wait(seconds: Double = 15, until condition: ([Received]) -> Bool) -> [Received] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let now = received
            if condition(now) { return now }
            usleep(20_000)
        }
        return received
    }

    deinit {
        // Foundation's waitUntilExit can hang off the main thread on Linux; a kill is enough.
        kill(process.processIdentifier, SIGKILL)
    }
}

/// Polls the server (bounded) until `condition` holds.
func eventually<T>(seconds: Double = 15, _ probe: () throws -> T, until condition: (T) -> Bool) rethrows -> T {
    let deadline = Date().addingTimeInterval(seconds)
    var value = try probe()
    while !condition(value) && Date() < deadline {
        usleep(20_000)
        value = try probe()
    }
    return value
}
