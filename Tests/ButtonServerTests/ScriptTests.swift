import Foundation
import MicroHTTP
import Testing
import TestSupport

@Suite("Script handlers run for real")
struct ScriptTests {
    /// A scripts directory with the given executable scripts.
    static func scriptsDir(_ scripts: [String: String]) throws -> String {
        let dir = NSTemporaryDirectory() + "buttond-scripts-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, body) in scripts {
            try body.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
            chmod(dir + "/" + name, 0o755)
        }
        return dir
    }

    static func server(_ dir: String) throws -> TestServer {
        try TestServer { $0.scriptsDir = dir }
    }

    static func deliveryDetail(_ server: TestServer, handler: String, until status: String) throws -> JSONValue {
        let list = try eventually(
            { try server.client.get("/api/v1/deliveries?handler=\(handler)").json["deliveries"]?.array ?? [] },
            until: { $0.first?["status"] == .string(status) })
        guard let id = list.first?["id"]?.string else { return .null }
        return try server.client.get("/api/v1/deliveries/\(id)").json
    }

    @Test func echoesStdinArgumentsAndTheCleanEnvironment() throws {
        let dir = try Self.scriptsDir([
            "echo.sh": "#!/bin/sh\ncat > \"$PWD/stdin.json\"\necho \"$@\" > \"$PWD/args.txt\"\nenv | sort > \"$PWD/env.txt\"\necho done\n"
        ])
        let server = try Self.server(dir)
        try server.createButton(#"{"id": "door", "label": "Front", "kind": "toggle", "maxTaps": 1}"#)
        let created = try server.post(
            "/api/v1/buttons/door/handlers",
            #"{"on": ["toggle"], "script": {"name": "echo.sh", "args": ["{button}", "{type}", "{face}", "{seq}", "x{t}", "literal", "{label}", "{id}"]}}"#)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["secret"] == nil)
        let hid = created.json["id"]!.string!
        let press = try server.post("/api/v1/buttons/door/press", #"{"t": 1700000005000}"#)
        let toggle = try #require(press.json["events"]?.array.first { $0["type"] == "toggle" })
        let detail = try Self.deliveryDetail(server, handler: hid, until: "ok")
        #expect(detail["attempts"]?.array.first?["exitCode"] == 0)
        #expect(detail["attempts"]?.array.first?["output"] == "done\n")
        let stdin = try Data(contentsOf: URL(fileURLWithPath: dir + "/stdin.json"))
        #expect(try JSONParser.parse([UInt8](stdin)) == toggle)
        let args = try String(contentsOfFile: dir + "/args.txt", encoding: .utf8)
        #expect(args == "door toggle 1 \(toggle["seq"]!.int!) x{t} literal Front \(toggle["id"]!.string!)\n")
        let env = try String(contentsOfFile: dir + "/env.txt", encoding: .utf8)
        let names = Set(env.split(separator: "\n").compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
        #expect(names.isSubset(of: ["PATH", "HOME", "LANG", "BUTTOND_EVENT", "BUTTOND_TYPE", "BUTTOND_BUTTON", "BUTTOND_SEQ", "BUTTOND_ATTEMPT", "PWD", "SHLVL", "_"]))
        #expect(env.contains("BUTTOND_TYPE=toggle\n"))
        #expect(env.contains("BUTTOND_BUTTON=door\n"))
        #expect(env.contains("BUTTOND_ATTEMPT=1\n"))
    }

    @Test func timeoutKillsTheScriptAndItsChildren() throws {
        let dir = try Self.scriptsDir([
            "slow.sh": "#!/bin/sh\nsleep 60 &\necho $! > \"$PWD/child.pid\"\necho $$ > \"$PWD/self.pid\"\ntrap '' TERM\nsleep 60\n"
        ])
        let server = try Self.server(dir)
        try server.createButton(#"{"id": "b", "maxTaps": 1}"#)
        let created = try server.post("/api/v1/buttons/b/handlers", #"{"on": ["tap"], "script": {"name": "slow.sh", "timeoutMs": 1000}}"#)
        let hid = created.json["id"]!.string!
        try server.post("/api/v1/buttons/b/press")
        let detail = try Self.deliveryDetail(server, handler: hid, until: "failed")
        let attempt = detail["attempts"]?.array.first
        #expect(attempt?["outcome"] == "timeout")
        #expect((attempt?["durationMs"]?.int ?? 0) >= 1000)
        for file in ["child.pid", "self.pid"] {
            let pid = Int32((try? String(contentsOfFile: dir + "/" + file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
            #expect(pid > 0)
            // Gone, or a zombie awaiting its reaper: not running.
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2).first
            #expect(state == nil || state == "Z", "\(file) \(pid) is still running")
        }
    }

    @Test func whatAScriptLeavesInItsGroupIsStoppedWhenItExits() throws {
        let dir = try Self.scriptsDir([
            "leaves.sh": "#!/bin/sh\nsleep 600 &\necho $! > \"$PWD/child.pid\"\necho started\n"
        ])
        let server = try Self.server(dir)
        try server.createButton(#"{"id": "b", "maxTaps": 1}"#)
        let created = try server.post("/api/v1/buttons/b/handlers", #"{"on": ["tap"], "script": {"name": "leaves.sh"}}"#)
        let hid = created.json["id"]!.string!
        try server.post("/api/v1/buttons/b/press")
        let detail = try Self.deliveryDetail(server, handler: hid, until: "ok")
        #expect(detail["attempts"]?.array.first?["exitCode"] == 0)
        let pid = Int32((try? String(contentsOfFile: dir + "/child.pid", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        #expect(pid > 0)
        // Gone, or a zombie awaiting its reaper: not running.
        let state = eventually(seconds: 10, {
            (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2).first.map(String.init)
        }, until: { $0 == nil || $0 == "Z" })
        #expect(state == nil || state == "Z", "the script's child \(pid) is still running")
    }

    @Test func aScriptSwappedForASymlinkIsRefusedAndDoesNotRun() throws {
        let dir = try Self.scriptsDir(["ok.sh": "#!/bin/sh\nexit 0\n"])
        let outside = try Self.scriptsDir([:])
        try "#!/bin/sh\ntouch \"\(outside)/ran\"\n".write(toFile: outside + "/evil.sh", atomically: true, encoding: .utf8)
        chmod(outside + "/evil.sh", 0o755)
        let server = try Self.server(dir)
        try server.createButton(#"{"id": "b", "maxTaps": 1}"#)
        let created = try server.post("/api/v1/buttons/b/handlers", #"{"on": ["tap"], "script": {"name": "ok.sh"}}"#)
        #expect(created.status == 201)
        let hid = created.json["id"]!.string!
        // After registration the file becomes a link to a script outside the directory.
        try FileManager.default.removeItem(atPath: dir + "/ok.sh")
        try FileManager.default.createSymbolicLink(atPath: dir + "/ok.sh", withDestinationPath: outside + "/evil.sh")
        try server.post("/api/v1/buttons/b/press")
        let detail = try Self.deliveryDetail(server, handler: hid, until: "failed")
        #expect(detail["attempts"]?.array.first?["outcome"] == "refused")
        #expect(!FileManager.default.fileExists(atPath: outside + "/ran"))
    }

    @Test func hugeOutputIsCappedAndExitCodesAreRecorded() throws {
        let dir = try Self.scriptsDir([
            "loud.sh": "#!/bin/sh\nhead -c 10485760 /dev/zero | tr '\\0' 'x'\nexit 3\n"
        ])
        let server = try Self.server(dir)
        try server.createButton(#"{"id": "b", "maxTaps": 1}"#)
        let hid = try server.post("/api/v1/buttons/b/handlers", #"{"on": ["tap"], "script": {"name": "loud.sh"}}"#).json["id"]!.string!
        try server.post("/api/v1/buttons/b/press")
        let detail = try Self.deliveryDetail(server, handler: hid, until: "failed")
        let attempt = detail["attempts"]?.array.first
        #expect(attempt?["outcome"] == "exit_code")
        #expect(attempt?["exitCode"] == 3)
        #expect(attempt?["output"]?.string?.utf8.count == 4096)
    }

    static let badNames = ["../x", "/bin/sh", "a/b", "..", ".hidden", "missing.sh", "notexec.sh"]

    @Test(arguments: badNames)
    func scriptNamesAreChecked(name: String) throws {
        let dir = try Self.scriptsDir(["ok.sh": "#!/bin/sh\n"])
        try "#!/bin/sh\n".write(toFile: dir + "/notexec.sh", atomically: true, encoding: .utf8)
        let server = try Self.server(dir)
        try server.createButton(#"{"id": "b"}"#)
        let reply = try server.post("/api/v1/buttons/b/handlers", "{\"on\": [\"tap\"], \"script\": {\"name\": \"\(name)\"}}")
        #expect(reply.status == 422)
        #expect(reply.json["error"]?["field"] == "script.name")
    }
}
