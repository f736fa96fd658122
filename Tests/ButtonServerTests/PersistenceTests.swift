import Foundation
import TestSupport
import MicroHTTP
import Testing
import CurlHTTP

@Suite("Persistence across restarts and crashes")
struct PersistenceTests {
    static func tempDir() -> String { NSTemporaryDirectory() + "buttond-persist-\(UUID().uuidString)" }

    @Test func restartKeepsRegistryFacesHistoryAndSeq() throws {
        let dir = Self.tempDir()
        do {
            let server = try TestServer(dataDir: dir)
            try server.createButton(#"{"id": "lamp", "kind": "toggle", "maxTaps": 1, "label": "Lamp"}"#)
            try server.post("/api/v1/sheets", #"{"id": "s", "title": "Scenes", "options": [{"id": "a"}]}"#)
            try server.post("/api/v1/buttons/lamp/press", #"{"t": 1700000001000}"#)
            #expect(try server.client.get("/api/v1/buttons/lamp").json["state"]?["face"] == 1)
            server.stop()
        }
        let server = try TestServer(dataDir: dir)
        let lamp = try server.client.get("/api/v1/buttons/lamp").json
        #expect(lamp["label"] == "Lamp")
        #expect(lamp["state"]?["face"] == 1)
        #expect(try server.client.get("/api/v1/sheets/s").json["title"] == "Scenes")
        let history = try server.client.get("/api/v1/events?after=0").json["events"]!.array
        #expect(history.count == 5)
        // The clock survived: an earlier t is still out of order.
        #expect(try server.post("/api/v1/buttons/lamp/down", #"{"t": 1700000000500}"#).errorCode == "out_of_order")
        let next = try server.post("/api/v1/buttons/lamp/press", #"{"t": 1700000002000}"#)
        #expect(next.json["events"]?.array.first?["seq"] == 6)
        #expect(try server.client.get("/api/v1/buttons/lamp").json["state"]?["face"] == 0)
    }

    @Test func aTapSeriesCutByAStopEndsWithItsNTapAtRestart() throws {
        let dir = Self.tempDir()
        do {
            let server = try TestServer(dataDir: dir)
            try server.createButton(#"{"id": "d", "multiTapMs": 5000, "longPressMs": 60000, "maxTaps": 3}"#)
            try server.post("/api/v1/buttons/d/press")
            try server.post("/api/v1/buttons/d/press")
            try server.post("/api/v1/buttons/d/down")
            server.stop()
        }
        let server = try TestServer(dataDir: dir)
        let events = try server.client.get("/api/v1/events?after=0").json["events"]!.array
        #expect(events.suffix(2).map { $0["type"]!.string! } == ["double-tap", "touch-cancel"])
        #expect(events.suffix(2).first?["data"] == ["tapCount": 2])
        #expect(try server.client.get("/api/v1/buttons/d").json["state"] == ["held": false, "face": 0, "tapCount": 0, "armed": false])
    }

    @Test func heldButtonComesBackReleasedWithARestartCancel() throws {
        let dir = Self.tempDir()
        let first = try ServerProcess(dataDir: dir)
        try first.client.request("POST", "/api/v1/buttons", json: #"{"id": "held", "longPressMs": 60000}"#)
        #expect(try first.client.request("POST", "/api/v1/buttons/held/down", json: "{}").status == 200)
        first.stop(SIGKILL)
        let second = try ServerProcess(dataDir: dir)
        #expect(try second.client.get("/api/v1/buttons/held").json["state"]?["held"] == false)
        let last = try second.client.get("/api/v1/events?after=0").json["events"]!.array.last
        #expect(last?["type"] == "touch-cancel")
        #expect(last?["data"]?["reason"] == "restart")
        #expect(try second.client.request("POST", "/api/v1/buttons/held/up", json: "{}").errorCode == "not_down")
    }

    /// Several clients press while the server is killed with SIGKILL; every input that got a
    /// 2xx must be in the history after a restart.
    @Test func crashLosesNothingAcknowledged() async throws {
        let dir = Self.tempDir()
        let server = try ServerProcess(dataDir: dir)
        for i in 0..<4 { try server.client.request("POST", "/api/v1/buttons", json: "{\"id\": \"c\(i)\"}") }
        let port = server.port
        let acknowledged = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for i in 0..<4 {
                group.addTask {
                    var seqs: [Int64] = []
                    let client = HTTPClient(port: port, timeoutSeconds: 5)
                    for _ in 0..<400 {
                        guard let reply = try? client.request("POST", "/api/v1/buttons/c\(i)/press", json: "{}") else { break }
                        guard reply.status == 200 else { break }
                        if case .array(let events)? = reply.json["events"] {
                            seqs += events.compactMap { if case .int(let s)? = $0["seq"] { s } else { nil } }
                        }
                    }
                    return seqs
                }
            }
            group.addTask {
                usleep(400_000)
                server.stop(SIGKILL)
                return []
            }
            var all: [Int64] = []
            for try await seqs in group { all += seqs }
            return all
        }
        #expect(!acknowledged.isEmpty)
        let restarted = try ServerProcess(dataDir: dir)
        var stored = Set<Int64>()
        var after: Int64 = 0
        while true {
            let page = try restarted.client.get("/api/v1/events?after=\(after)&limit=1000").json["events"]!.array
            guard let last = page.last?["seq"], case .int(let seq) = last else { break }
            for event in page { if case .int(let s)? = event["seq"] { stored.insert(s) } }
            after = seq
        }
        let lost = Set(acknowledged).subtracting(stored)
        #expect(lost.isEmpty, "acknowledged but lost: \(lost.sorted().prefix(10))")
    }

    @Test func unusableDataDirectoryIsAClearStartError() throws {
        let file = Self.tempDir()
        try "not a directory".write(toFile: file, atomically: true, encoding: .utf8)
        let (code, _, stderr) = try runButtond(["serve", "--port", "0", "--data-dir", file])
        #expect(code == 1)
        #expect(stderr.contains(file))
        let dir = Self.tempDir()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try String(repeating: "garbage!", count: 1000).write(toFile: dir + "/buttond.sqlite3", atomically: true, encoding: .utf8)
        let (code2, _, stderr2) = try runButtond(["serve", "--port", "0", "--data-dir", dir])
        #expect(code2 == 1)
        #expect(stderr2.contains("buttond.sqlite3"))
    }

    @Test func dataDirectoryAndDatabaseArePrivate() throws {
        let dir = Self.tempDir()
        let server = try TestServer(dataDir: dir)
        let dirMode = try FileManager.default.attributesOfItem(atPath: dir)[.posixPermissions] as? Int
        let dbMode = try FileManager.default.attributesOfItem(atPath: dir + "/buttond.sqlite3")[.posixPermissions] as? Int
        #expect(dirMode == 0o700)
        #expect(dbMode == 0o600)
        server.stop()
    }

    @Test func retentionTrimsTheOldest() throws {
        let server = try TestServer { $0.retention = 100 }
        try server.createButton(#"{"id": "r", "maxTaps": 1}"#)
        for i in 0..<300 { try server.post("/api/v1/buttons/r/press", "{\"t\": \(1_700_000_001_000 + i * 10)}") }
        let events = try server.client.get("/api/v1/events?after=0&limit=1000").json["events"]!.array
        #expect(events.count <= 1100)
        #expect(events.first?["seq"]?.int ?? 0 > 1)
        #expect(events.last?["seq"] == 1200)
    }

    @Test func configExportImportAndSeed() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "a", "kind": "toggle"}"#)
        try server.post("/api/v1/sheets", #"{"id": "s", "options": [{"id": "x"}]}"#)
        let hook = try server.post("/api/v1/buttons/a/handlers", #"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/x"}}"#)
        let exported = try server.client.get("/api/v1/config")
        #expect(exported.json["buttons"]?.array.count == 1)
        #expect(exported.json["handlers"]?.array.count == 1)
        #expect(!exported.text.contains("whsec_"))
        #expect(exported.json["buttons"]?.array.first?["state"] == nil)

        // Import a changed config: b added, a kept (with its handler and secret), s dropped.
        guard case .object(var config) = exported.json, case .array(var buttons)? = config["buttons"] else { return }
        buttons.append(["id": "b", "label": "B"])
        config["buttons"] = .array(buttons)
        config["sheets"] = []
        let imported = try server.client.request("PUT", "/api/v1/config", body: JSONWriter.encode(.object(config)))
        #expect(imported.status == 200, "\(imported.text)")
        #expect(imported.json["secrets"] == [:])
        #expect(try server.client.get("/api/v1/buttons/b").json["label"] == "B")
        #expect(try server.client.get("/api/v1/sheets/s").status == 404)
        #expect(try server.client.get("/api/v1/handlers/\(hook.json["id"]!.string!)").status == 200)
        let bad = try server.client.request("PUT", "/api/v1/config", json: #"{"buttons": [{"id": "a", "maxTaps": 9}]}"#)
        #expect(bad.status == 422)
        #expect(bad.json["error"]?["field"] == "buttons[0].maxTaps")
        #expect(try server.client.get("/api/v1/buttons/b").status == 200)
        // A misspelt list is named as unknown, not reported as `buttons` missing.
        let typo = try server.client.request("PUT", "/api/v1/config", json: #"{"buttonz": []}"#)
        #expect(typo.status == 422)
        #expect(typo.json["error"]?["field"] == "buttonz", "\(typo.text)")
        #expect(try server.client.request("PUT", "/api/v1/config", json: "{}").json["error"]?["field"] == "buttons")
        #expect(try server.client.get("/api/v1/buttons/b").status == 200)

        // --config seeds a fresh server.
        let file = PersistenceTests.tempDir() + ".json"
        try String(decoding: exported.body, as: UTF8.self).write(toFile: file, atomically: true, encoding: .utf8)
        let seeded = try TestServer { $0.configFile = file }
        #expect(try seeded.client.get("/api/v1/buttons/a").json["kind"] == "toggle")
        #expect(try seeded.client.get("/api/v1/sheets/s").status == 200)
        #expect(try seeded.client.get("/api/v1/buttons/a/handlers").json["handlers"]?.array.count == 1)
    }
}
