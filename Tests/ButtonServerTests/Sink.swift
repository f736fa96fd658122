import Foundation
import MicroHTTP
import CurlHTTP

/// The Python webhook sink (tests/support/webhook_sink.py) as a real process on loopback: it
/// records each request whole and checks signatures with Python's hmac. Paths choose the
/// answer (see the script).
final class Sink: @unchecked Sendable {  // fields are set once in init
    let process = Process()
    let port: Int
    let dir: String

    struct Received {
        var method: String
        /// Path and query, as sent.
        var target: String
        var path: String
        var n: Int
        var headers: [String: String]
        var body: [UInt8]
        /// Whether the secret given to `setSecret` verifies the signature (nil: none given).
        var verified: Bool?
        /// Handler ids (given to `trust`) whose secret verifies the signature.
        var verifiedBy: [String]
        /// When it arrived (Unix seconds).
        var at: Double
        var json: JSONValue? { try? JSONParser.parse(body) }
    }

    init() throws {
        dir = NSTemporaryDirectory() + "sink-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/secrets", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir + "/log.jsonl", contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", TestServer.repositoryRoot + "/tests/support/webhook_sink.py", "--log", dir + "/log.jsonl",
            "--secret-file", dir + "/secret", "--secrets-dir", dir + "/secrets", "--release-dir", dir,
        ]
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

    /// Signatures are checked against this secret (`verified`).
    func setSecret(_ secret: String) throws { try secret.write(toFile: dir + "/secret", atomically: true, encoding: .utf8) }

    /// Signatures made with this handler's secret are reported as verified by `handler`.
    func trust(_ handler: String, secret: String) throws {
        try secret.write(toFile: dir + "/secrets/" + handler, atomically: true, encoding: .utf8)
    }

    /// Lets requests waiting on `/hold/NAME` be answered (200).
    func release(_ name: String) {
        _ = FileManager.default.createFile(atPath: dir + "/release-" + name, contents: Data())
    }

    var received: [Received] {
        guard let text = try? String(contentsOfFile: dir + "/log.jsonl", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let json = try? JSONParser.parse(Array(line.utf8)), let method = json["method"]?.string,
                let target = json["target"]?.string, let path = json["path"]?.string, let n = json["n"]?.int,
                let body = json["body"]?.string, case .object(let headers)? = json["headers"]
            else { return nil }
            var verified: Bool?
            if case .bool(let value)? = json["verified"] { verified = value }
            var at = 0.0
            switch json["at"] {
            case .double(let value)?: at = value
            case .int(let value)?: at = Double(value)
            default: break
            }
            return Received(
                method: method, target: target, path: path, n: Int(n),
                headers: headers.compactMapValues { $0.string }, body: [UInt8](Data(base64Encoded: body) ?? Data()),
                verified: verified, verifiedBy: (json["verifiedBy"]?.array ?? []).compactMap { $0.string }, at: at)
        }
    }

    func received(path: String) -> [Received] { received.filter { $0.path == path } }

    /// Waits (bounded) until `condition` holds for what the sink received.
    func wait(seconds: Double = 60, until condition: ([Received]) -> Bool) -> [Received] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let now = received
            if condition(now) { return now }
            usleep(20_000)
        }
        return received
    }

    /// Kills the process: held requests end with a broken connection.
    func stop() { kill(process.processIdentifier, SIGKILL) }

    // Foundation's waitUntilExit can hang off the main thread on Linux; a kill is enough.
    deinit { kill(process.processIdentifier, SIGKILL) }
}
