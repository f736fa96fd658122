import ButtonServer
import ButtondCLI
import CurlHTTP
import Foundation
import Testing
import TestSupport

/// `buttond serve` and `buttond check` as an operator meets them: a start that fails says why
/// and exits 1, flags read as documented, and `check` tells a sound database from a damaged one.
@Suite("buttond serve and check")
struct ServeCommandTests {
    @Test func aFailedStartExitsOneCleanlyEveryTime() throws {
        let busy = try CLIServer()
        let dir = NSTemporaryDirectory() + "buttond-busy-\(UUID().uuidString)"
        for _ in 0..<10 {
            let (status, _, stderr) = try runButtond(["serve", "--port", String(busy.process.port), "--data-dir", dir])
            #expect(status == 1, "\(stderr)")
            #expect(stderr.contains("cannot listen") || stderr.contains("address"), "\(stderr)")
            #expect(!stderr.contains("Fatal error") && !stderr.contains("Crash"), "\(stderr)")
        }
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
        let server = try CLIServer()
        for i in 0..<300 {
            let reply = try server.post("/api/v1/buttons", "{\"id\": \"b\(i)\", \"label\": \"\(String(repeating: "x", count: 60))\"}")
            try #require(reply.status == 201, "\(reply.text)")
        }
        let dir = server.dataDir
        let (ok, out, _) = try runButtond(["check", "--data-dir", dir])  // beside the running server
        #expect(ok == 0)
        #expect(out.contains("ok"))
        #expect(server.process.stop() == 0)
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
}
