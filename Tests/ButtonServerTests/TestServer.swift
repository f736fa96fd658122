import ButtonServer
import Foundation
import TestSupport
import MicroHTTP
import CurlHTTP

/// A real buttond (the same `ButtonServerApp` as `buttond serve`) on 127.0.0.1, port 0,
/// with its own SQLite data directory.
final class TestServer: Sendable {
    let app: ButtonServerApp
    let client: HTTPClient
    let dataDir: String

    init(dataDir: String? = nil, configure: (inout ServeOptions) -> Void = { _ in }) throws {
        let dir = dataDir ?? NSTemporaryDirectory() + "buttond-test-\(UUID().uuidString)"
        self.dataDir = dir
        var options = ServeOptions()
        options.port = 0
        options.http.port = 0
        options.dataDir = dir
        options.publicDir = TestServer.repositoryRoot + "/public"
        options.logLevel = .warn
        configure(&options)
        app = try Self.open(options)
        try app.start()
        client = HTTPClient(port: app.port, token: options.adminToken)
    }

    static var repositoryRoot: String { ServerProcess.repositoryRoot }

    /// The app on `options`' data directory. Reopened after a stop in the same process, the
    /// directory's lock can still be held for a moment by a child another test is spawning
    /// (it holds a copy of every descriptor until its exec closes them): that refusal is
    /// retried for up to 2 s.
    static func open(_ options: ServeOptions) throws -> ButtonServerApp {
        for _ in 0..<20 {
            do {
                return try ButtonServerApp(options: options, clock: .system)
            } catch {
                guard error.description.contains("another buttond is using") else { throw error }
                usleep(100_000)
            }
        }
        return try ButtonServerApp(options: options, clock: .system)
    }

    func stop() { app.stop() }

    deinit { app.stop() }

    // Conveniences that keep tests short.

    @discardableResult
    func post(_ path: String, _ json: String = "{}") throws -> HTTPClient.Reply {
        try client.request("POST", path, json: json)
    }

    @discardableResult
    func createButton(_ json: String) throws -> HTTPClient.Reply {
        try post("/api/v1/buttons", json)
    }

    /// The `type`s of a reply's events.
    static func types(_ reply: HTTPClient.Reply) -> [String] {
        guard case .array(let events)? = reply.json["events"] else { return [] }
        return events.compactMap { if case .string(let type)? = $0["type"] { return type } else { return nil } }
    }
}

extension JSONValue {
    var int: Int64? { if case .int(let v) = self { return v } else { return nil } }
    var string: String? { if case .string(let v) = self { return v } else { return nil } }
    var array: [JSONValue] { if case .array(let v) = self { return v } else { return [] } }
}
