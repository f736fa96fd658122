import MicroHTTP
import Platform
import Synchronization

/// A real HTTP server (libmicrohttpd, as buttond serves) on port 0 for the client to talk to:
/// `/echo` answers with what it received, `/status/{code}` with that status, `/stream` with
/// an event stream the test writes to.
final class EchoServer: Sendable {
    let server: HTTPServer
    let opened = Opened()

    /// The streams `/stream` has opened, and the hub it opens them from (the server's, known
    /// only once the server exists).
    final class Opened: Sendable {
        let streams = Mutex<[EventStream]>([])
        let hub = Mutex<StreamHub?>(nil)
    }

    init(host: String = "127.0.0.1", heartbeatSeconds: Double = 15) throws {
        var router = Router()
        let echo: @Sendable (Request) throws -> Response = { request in
            let headers = JSONValue.object(Dictionary(request.headers.all.map { ($0.name, .string($0.value)) }, uniquingKeysWith: { $1 }))
            return .json([
                "method": .string(request.method), "path": .string(request.path), "headers": headers,
                "body": .string(String(decoding: request.body, as: UTF8.self)),
            ])
        }
        for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] { router.add(method, "/echo", echo) }
        router.get("/status/{code}") { request in
            Response(status: Int(request.parameter("code")) ?? 500, headers: [("X-Answer", "  spaced  ")], body: .bytes(Array("status body".utf8)))
        }
        router.get("/refuse") { _ in throw HTTPError(409, code: "busy", message: "it is busy") }
        let opened = opened
        router.get("/stream") { _ in
            guard let hub = opened.hub.withLock({ $0 }) else { throw HTTPError(500, code: "no_hub", message: "no hub yet") }
            let stream = try hub.open()
            opened.streams.withLock { $0.append(stream) }
            return Response(status: 200, headers: [("Content-Type", "text/event-stream")], body: .stream(stream))
        }
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = 0
        configuration.heartbeatSeconds = heartbeatSeconds
        let server = HTTPServer(configuration: configuration, clock: .system, router: router)
        opened.hub.withLock { $0 = server.streams }
        try server.start()
        self.server = server
    }

    var port: Int { server.port }

    /// The `count`th stream the server has opened, once it has (bounded wait).
    func stream(_ index: Int = 0) -> EventStream? {
        for _ in 0..<1000 {
            if let stream = opened.streams.withLock({ $0.count > index ? $0[index] : nil }) { return stream }
            usleep(10_000)
        }
        return nil
    }

    deinit { server.stop() }
}
