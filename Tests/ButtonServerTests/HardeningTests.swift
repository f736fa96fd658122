import Foundation
import MicroHTTP
import Testing
import ButtondCLI
import CurlHTTP
import TestSupport

@testable import ButtonServer
@testable import ButtonStore

/// Defects an outside review found (issue 17), each pinned down.
@Suite("Hardening")
struct HardeningTests {
    @Test func aFailedStartExitsOneCleanlyEveryTime() throws {
        let busy = try TestServer()
        let dir = NSTemporaryDirectory() + "buttond-busy-\(UUID().uuidString)"
        for _ in 0..<10 {
            let (status, _, stderr) = try runButtond(["serve", "--port", String(busy.app.port), "--data-dir", dir])
            #expect(status == 1, "\(stderr)")
            #expect(stderr.contains("cannot listen") || stderr.contains("address"), "\(stderr)")
            #expect(!stderr.contains("Fatal error") && !stderr.contains("Crash"), "\(stderr)")
        }
    }

    @Test func controlCharactersAreEscapedInLogfmt() {
        #expect(Logger.quote("/c\u{1B}[31mred") == #""/c\u001b[31mred""#)
        #expect(Logger.quote("a\u{7F}b") == #""a\u007fb""#)
        #expect(Logger.quote("plain") == "plain")
        #expect(!Logger.quote("tab\there").contains("\t"))
        // C1 controls (CSI, NEL) and the Unicode line separator, raw in UTF-8, act on terminals too
        #expect(Logger.quote("/c1\u{9B}31mX\u{85}Y\u{2028}Z") == #""/c1\u009b31mX\u0085Y\u2028Z""#)
        #expect(Logger.jsonString("\u{9B}") == #""\u009b""#)
        #expect(Logger.quote("21.5 °C") == #""21.5 °C""#, "other non-ASCII stays as it is")
    }

    @Test func anEmptyAdminTokenIsNoToken() throws {
        let options = try ServeOptions.parse(["--admin-token", "", "--press-token=", "--host", "0.0.0.0"], environment: [:])
        #expect(options.adminToken == nil)
        #expect(options.pressToken == nil)
        // Off loopback with no token, one is made and kept.
        let dir = NSTemporaryDirectory() + "buttond-token-\(UUID().uuidString)"
        let server = try ServerProcess(dataDir: dir, arguments: ["--admin-token", "", "--host", "0.0.0.0"])
        defer { server.stop() }
        #expect(server.log.contains("generated an admin token"))
        #expect(FileManager.default.fileExists(atPath: dir + "/admin-token"))
    }

    /// The generated token is printed with the panel's URL: one a browser can open (it was
    /// http:// under TLS, and 0.0.0.0).
    @Test func thePanelURLIsOneABrowserCanOpen() {
        var options = ServeOptions()
        options.host = "0.0.0.0"
        options.tlsSelfSigned = true
        let url = options.panelURL(port: 8443)
        #expect(url.hasPrefix("https://") && url.hasSuffix(":8443/") && !url.contains("0.0.0.0"), "\(url)")
        options.tlsSelfSigned = false
        options.host = "::1"
        #expect(options.panelURL(port: 8080) == "http://[::1]:8080/")
        #expect(options.url(host: "::", port: 1) == "http://[::]:1/")
    }

    @Test func newPositionsComeFromAnIndex() throws {
        let dir = NSTemporaryDirectory() + "buttond-plan-\(UUID().uuidString)"
        let store = try ButtonStore(directory: dir)
        defer { store.close() }
        let plans = try store.withConnection { connection throws(StoreError) in
            try connection.statement("EXPLAIN QUERY PLAN SELECT COALESCE(MAX(position), -1) + 1 FROM buttons").rows { $0.text(3) }
                + connection.statement("EXPLAIN QUERY PLAN SELECT COALESCE(MAX(position), -1) + 1 FROM sheets").rows { $0.text(3) }
        }
        #expect(plans.allSatisfy { $0.contains("USING") && $0.contains("INDEX") }, "\(plans)")
    }

    /// More than 100 parameters, or fewer but long ones (libmicrohttpd's pool ran out: the client
    /// got nothing until the header deadline). SPEC §6: an error status and a close, never a hang.
    @Test(arguments: [
        (101, 1, "too_many_parameters"), (600, 1, "too_many_parameters"), (2_000, 1, "too_many_parameters"),
        (60, 480, "query_too_long"), (90, 300, "query_too_long"), (100, 270, "query_too_long"),
    ])
    func aQueryTooBigToHoldGetsAnAnswerAndAClose(count: Int, length: Int, code: String) throws {
        let server = try TestServer()
        let query = (0..<count).map { "p\($0)=" + String(repeating: "v", count: length) }.joined(separator: "&")
        let connection = try RawConnection(host: "127.0.0.1", port: server.app.port, timeoutSeconds: 10)
        try connection.write(Array("GET /api/v1/buttons?\(query) HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        let reply = try connection.readReply()
        #expect(reply.status == 414)
        #expect(reply.json["error"]?["code"] == .string(code))
        #expect(reply.header("connection")?.lowercased() == "close")
        // A request with a handful still works.
        #expect(try server.client.get("/api/v1/events?limit=5&after=0").status == 200)
    }

    /// A bad `--config` names the field and what is wrong with it, as the API would (it said
    /// only "cannot load the registry").
    @Test func aBadConfigFileSaysWhatIsWrongWithIt() throws {
        let dir = NSTemporaryDirectory() + "buttond-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let file = dir + "/seed.json"
        try #"{"buttons": [{"id": "door", "longpressMs": 600}]}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let (status, _, stderr) = try runButtond(["serve", "--port", "0", "--data-dir", dir + "/data", "--config", file])
        #expect(status == 1)
        #expect(stderr.contains("invalid --config \(file)") && stderr.contains("longpressMs"), "\(stderr)")
        try "{not json".write(toFile: file, atomically: true, encoding: .utf8)
        let (again, _, words) = try runButtond(["serve", "--port", "0", "--data-dir", dir + "/data", "--config", file])
        #expect(again == 1)
        #expect(words.contains("not JSON"), "\(words)")
    }

    @Test func aSecondServerOnTheSameDirectorySaysWhoHasIt() throws {
        let dir = NSTemporaryDirectory() + "buttond-second-\(UUID().uuidString)"
        let first = try ServerProcess(dataDir: dir)
        defer { first.stop() }
        let started = Date()
        let (status, _, stderr) = try runButtond(["serve", "--port", "0", "--data-dir", dir])
        #expect(status == 1)
        #expect(Date().timeIntervalSince(started) < 3)
        #expect(stderr.contains("another buttond is using \(dir) (pid \(first.pid))"), "\(stderr)")
        #expect(!stderr.contains("corrupt") && !stderr.contains("SQLite database?"))
    }

    @Test func checkSaysWhetherTheDatabaseIsSound() throws {
        let server = try TestServer()
        for i in 0..<300 { try server.createButton("{\"id\": \"b\(i)\", \"label\": \"\(String(repeating: "x", count: 60))\"}") }
        let dir = server.dataDir
        let (ok, out, _) = try runButtond(["check", "--data-dir", dir])  // beside the running server
        #expect(ok == 0)
        #expect(out.contains("ok"))
        server.stop()
        // Damage a page in the middle of the file, as a failing disk would.
        let path = dir + "/buttond.sqlite3"
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        handle.write(Data(repeating: 0x5A, count: 4096))
        try handle.close()
        let (damaged, findings, stderr) = try runButtond(["check", "--data-dir", dir])
        #expect(damaged == 1)
        #expect(!findings.contains("is sound"))
        #expect(stderr.contains("damaged") || stderr.contains("malformed"), "\(stderr)")
        #expect(try runButtond(["check", "--data-dir", dir + "-none"]).0 == 1)
    }

    /// Reads until the server closes the connection (true) or `seconds` pass (false).
    static func closedWithin(_ connection: RawConnection, seconds: Double) -> Bool {
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(connection.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let deadline = Date().addingTimeInterval(seconds)
        var byte: UInt8 = 0
        while Date() < deadline {
            let n = recv(connection.fd, &byte, 1, 0)
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { return true }
        }
        return false
    }

    /// Opens a connection, writes `opening`, then one `more(i)` a second: whether the server
    /// closed it within `seconds`.
    static func cutOffWithin(seconds: Double, server: TestServer, opening: String, more: (Int) -> String) throws -> Bool {
        let slow = try RawConnection(port: server.app.port)
        try slow.write(Array(opening.utf8))
        let started = Date()
        for i in 0..<8 {
            try? slow.write(Array(more(i).utf8))
            if closedWithin(slow, seconds: 1) { return Date().timeIntervalSince(started) < seconds }
        }
        return false
    }

    /// The deadline covers the body too: a client that sends a whole head and then a body byte
    /// a second would otherwise hold its connection for ever (the idle timeout restarts).
    @Test func aBodyThatTricklesInIsCutOffAtTheDeadline() throws {
        let server = try TestServer { $0.http.requestDeadlineSeconds = 2 }
        try server.createButton(#"{"id": "door"}"#)
        let head = "POST /api/v1/buttons/door/press HTTP/1.1\r\nHost: localhost\r\nContent-Length: 600\r\n\r\n{"
        #expect(try Self.cutOffWithin(seconds: 5, server: server, opening: head) { _ in " " })
        #expect((try server.client.get("/api/v1/events?after=0").json["events"]?.array ?? []).isEmpty)
        #expect(try server.post("/api/v1/buttons/door/press").status == 200)
    }

    @Test func aRequestHeadThatTricklesInIsCutOffAtTheDeadline() throws {
        let server = try TestServer { $0.http.requestDeadlineSeconds = 2 }
        // One header line a second: the idle timeout (30 s) alone would never fire.
        #expect(try Self.cutOffWithin(seconds: 5, server: server, opening: "GET /healthz HTTP/1.1\r\n") { "X-Slow-\($0): y\r\n" })
        // A stream that is being answered is not cut off, nor is an ordinary request.
        try server.createButton(#"{"id": "door"}"#)
        let stream = try server.client.stream("/api/v1/events/stream")
        #expect(stream.status == 200)
        Thread.sleep(forTimeInterval: 3)
        _ = try server.post("/api/v1/buttons/door/down")
        #expect(try stream.nextEvent().id == "1")
        #expect(try server.client.get("/healthz").status == 200)
    }
}
