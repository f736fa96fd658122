import Foundation
import MicroHTTP
import Synchronization
import CurlHTTP

/// A real libmicrohttpd server on 127.0.0.1, port 0, with a small test router.
final class LiveServer: Sendable {
    let server: HTTPServer
    let client: HTTPClient
    let publicDir: String
    let opened = Opened()
    /// `/slow/{what}` answers on a slow lane of one thread and one waiting answer: each waits
    /// for a signal of `gate` after signalling `started`.
    let gate = DispatchSemaphore(value: 0)
    let started = DispatchSemaphore(value: 0)
    /// What the server reported of each request answered.
    let records = Records()

    final class Records: Sendable {
        let list = Mutex<[RequestRecord]>([])
    }

    /// Streams the `/stream` handler has opened, and the hub it opens them from.
    final class Opened: Sendable {
        let streams = Mutex<[EventStream]>([])
        let hub = Mutex<StreamHub?>(nil)
    }

    init(heartbeatSeconds: Double = 15, maxStreams: Int = 16) throws {
        publicDir = NSTemporaryDirectory() + "microhttp-public-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: publicDir + "/css", withIntermediateDirectories: true)
        try "<!doctype html><title>t</title>".write(toFile: publicDir + "/index.html", atomically: true, encoding: .utf8)
        try "body{}".write(toFile: publicDir + "/css/site.css", atomically: true, encoding: .utf8)
        try "secret".write(toFile: publicDir + "/../microhttp-secret.txt", atomically: true, encoding: .utf8)

        var router = Router()
        router.get("/hello") { _ in .text("hello") }
        router.get("/items/{id}") { request in .json(["id": .string(request.parameter("id"))]) }
        router.get("/items/{id}/parts/{part}") { request in
            .json(["id": .string(request.parameter("id")), "part": .string(request.parameter("part"))])
        }
        router.get("/headers/{name}") { request in .json(["value": request.header(request.parameter("name")).map { .string($0) } ?? .null]) }
        router.delete("/items/{id}") { _ in .noContent }
        router.post("/echo") { request in
            let value = try request.json()
            return .json(["size": .int(Int64(request.body.count)), "value": value])
        }
        router.get("/fail") { _ in throw HTTPError(409, code: "busy", message: "it is busy") }
        let box = opened
        router.get("/stream") { _ in
            guard let hub = box.hub.withLock({ $0 }) else { throw HTTPError(500, code: "x", message: "x") }
            let stream = try hub.open()
            stream.send(Array(": hello\n\n".utf8))
            box.streams.withLock { $0.append(stream) }
            return Response(status: 200, headers: [("Content-Type", "text/event-stream")], body: .stream(stream))
        }
        let lane = SlowLane(threads: 1, capacity: 1)
        lane.start()
        let (gate, started) = (gate, started)
        router.get("/slow/{what}") { request in
            lane.answer(request) {
                started.signal()
                gate.wait()
                if request.parameter("what") == "fail" { throw HTTPError(409, code: "busy", message: "it is busy") }
                return .text("slow \(request.parameter("what"))")
            }
        }
        let files = StaticFiles(root: publicDir)
        router.fallback = { try files.serve($0) }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.heartbeatSeconds = heartbeatSeconds
        configuration.maxStreams = maxStreams
        let records = records
        let server = HTTPServer(configuration: configuration, clock: .system, router: router, onRequest: { record in records.list.withLock { $0.append(record) } })
        opened.hub.withLock { $0 = server.streams }
        try server.start()
        self.server = server
        self.client = HTTPClient(port: server.port)
    }

    /// Waits until `count` streams have been opened by the handler.
    func streams(count: Int) -> [EventStream] {
        for _ in 0..<500 {
            let streams = opened.streams.withLock { $0 }
            if streams.count >= count { return streams }
            usleep(10_000)
        }
        return opened.streams.withLock { $0 }
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: publicDir)
    }
}
