import Foundation
import MicroHTTP
import Testing
import TestSupport

/// Script handlers, continued: what a script leaves in its process group does not outlive
/// it, even when it ignores SIGTERM, nor outlive buttond.
extension ScriptTests {
    /// A script that starts a child ignoring SIGTERM (writing both pids to files) and then
    /// exits, or (`hold`) waits itself, ignoring SIGTERM too.
    static let stubborn: [String: String] = {
        let start = "#!/bin/sh\ntrap '' TERM\nsleep 60 >/dev/null 2>&1 &\necho $! > \"$PWD/child.pid\"\necho $$ > \"$PWD/self.pid\"\n"
        return ["stubborn.sh": start, "holds.sh": start + "sleep 60\n"]
    }()

    static func pid(_ dir: String, _ file: String) -> Int32 {
        Int32((try? String(contentsOfFile: dir + "/" + file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
    }

    /// Gone, or a zombie awaiting its reaper: not running.
    static func isRunning(_ pid: Int32) -> Bool {
        let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2).first
        return state != nil && state != "Z"
    }

    @Test func aChildThatIgnoresSIGTERMIsKilledAfterTheGrace() throws {
        let dir = try Self.scriptsDir(Self.stubborn)
        let server = try Self.server(dir)
        try server.createButton(#"{"id": "b", "maxTaps": 1}"#)
        let created = try server.post("/api/v1/buttons/b/handlers", #"{"on": ["tap"], "script": {"name": "stubborn.sh"}}"#)
        let hid = try #require(created.json["id"]?.string)
        try server.post("/api/v1/buttons/b/press")
        let detail = try Self.deliveryDetail(server, handler: hid, until: "ok")
        #expect(detail["attempts"]?.array.first?["exitCode"] == 0)
        let ended = Date()
        let child = Self.pid(dir, "child.pid")
        try #require(child > 0)
        let running = eventually(seconds: 4, { Self.isRunning(child) }, until: { !$0 })
        #expect(!running, "the script's child \(child), which ignores SIGTERM, still runs 4 s after the script ended")
        #expect(Date().timeIntervalSince(ended) >= 1.5, "it had the grace after SIGTERM")
    }

    @Test func aScriptRunningWhenButtondStopsIsStoppedWithItsChildren() throws {
        let dir = try Self.scriptsDir(Self.stubborn)
        let data = NSTemporaryDirectory() + "buttond-test-\(UUID().uuidString)"
        let server = try ServerProcess(dataDir: data, arguments: ["--scripts-dir", dir])
        try server.client.request("POST", "/api/v1/buttons", json: #"{"id": "b", "maxTaps": 1}"#)
        let created = try server.client.request(
            "POST", "/api/v1/buttons/b/handlers", json: #"{"on": ["tap"], "script": {"name": "holds.sh"}}"#)
        #expect(created.status == 201, "\(created.text)")
        try server.client.request("POST", "/api/v1/buttons/b/press", json: "{}")
        let pids = eventually(seconds: 10, { [Self.pid(dir, "self.pid"), Self.pid(dir, "child.pid")] }, until: { !$0.contains(0) })
        try #require(!pids.contains(0), "the script did not start")
        #expect(pids.allSatisfy(Self.isRunning))

        // The shutdown grace (10 s) for what is in flight, then SIGTERM, then SIGKILL 2 s later.
        let status = server.stop(SIGTERM, within: 30)
        #expect(status.map { $0 & 0x7f == 0 && ($0 >> 8) & 0xff == 0 } == true, "buttond exits 0 on SIGTERM")
        for pid in pids {
            #expect(!Self.isRunning(pid), "\(pid) outlived buttond")
        }
        #expect(!server.log.contains("outcome=signal"), "an attempt cut off by the stop is not recorded")
    }
}
