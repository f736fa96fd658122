import CurlHTTP
import Foundation
import JSON
import TestSupport

/// A real `buttond serve` on port 0 for the client commands to talk to, and the binary's
/// answers read back.
struct CLIServer {
    let process: ServerProcess
    let dataDir: String

    init(_ arguments: [String] = []) throws {
        dataDir = NSTemporaryDirectory() + "buttond-cli-\(UUID().uuidString)"
        process = try ServerProcess(dataDir: dataDir, arguments: arguments)
    }

    var url: String { process.url }

    @discardableResult
    func post(_ path: String, _ json: String = "{}") throws -> HTTPClient.Reply {
        try process.client.request("POST", path, json: json)
    }

    /// `buttond ARGS --server URL`.
    func run(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil) throws -> (Int32, String, String) {
        try runButtond(arguments + ["--server", url], environment: environment, stdin: stdin)
    }

    /// The `type` of each JSON line.
    static func types(_ output: String) -> [String] {
        output.split(separator: "\n").compactMap { line in
            if case .string(let type)? = (try? JSONParser.parse(Array(line.utf8)))?["type"] { return type }
            return nil
        }
    }

    /// The keys of a JSON line in the order they were written.
    static func keyOrder(_ line: Substring) -> [String] {
        let object = line.dropFirst().prefix { $0 != "{" }  // up to "data"'s object
        return object.split(separator: ",").compactMap { member in
            member.split(separator: ":").first.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        }
    }
}
