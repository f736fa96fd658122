import CurlHTTP
import Foundation
import JSON
import Testing

import TestSupport

/// `buttond config`, `deliveries`, `redeliver`, `tokens`, `token` and `events --follow
/// --limit` as a script runs them: the real binary against a real server, exit codes included.
@Suite("The operator's commands: config as code, deliveries, tokens")
struct ConfigCommandTests {
    static func file(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "buttond-doc-\(UUID().uuidString).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func exportDiffAndApply() throws {
        let server = try CLIServer()
        try server.post("/api/v1/buttons", #"{"id": "lamp"}"#)
        try server.post("/api/v1/buttons", #"{"id": "old"}"#)
        // Export to a file: diffing it says nothing would change (exit 0).
        let exported = NSTemporaryDirectory() + "buttond-export-\(UUID().uuidString).json"
        #expect(try server.run(["config", "export", exported]).0 == 0)
        let (same, quiet, _) = try server.run(["config", "diff", exported])
        #expect(same == 0)
        #expect(quiet.isEmpty, "\(quiet)")
        #expect(try server.run(["config", "export"]).1.contains("\"lamp\""))
        // A changed file: + door, ~ lamp with its member, - old; exit 1.
        let wanted = try Self.file(#"{"buttons": [{"id": "door"}, {"id": "lamp", "longPressMs": 800}]}"#)
        let (changes, plan, _) = try server.run(["config", "diff", wanted])
        #expect(changes == 1)
        #expect(plan.contains("+ button door"), "\(plan)")
        #expect(plan.contains("~ button lamp: longPressMs 500 → 800"), "\(plan)")
        #expect(plan.contains("- button old"), "\(plan)")
        #expect(try server.process.client.get("/api/v1/buttons/old").status == 200)
        // apply without a terminal and without --yes refuses to delete; with --yes it applies.
        let (refused, _, why) = try server.run(["config", "apply", wanted], stdin: "")
        #expect(refused == 1)
        #expect(why.contains("--yes"), "\(why)")
        #expect(try server.process.client.get("/api/v1/buttons/old").status == 200)
        let (applied, printed, _) = try server.run(["config", "apply", wanted, "--yes"])
        #expect(applied == 0)
        #expect(printed.contains("- button old"))
        #expect(try server.process.client.get("/api/v1/buttons/old").status == 404)
        #expect(try server.run(["config", "diff", wanted]).0 == 0)
        // A file that adds only: applied without asking.
        let more = try Self.file(#"{"buttons": [{"id": "door"}, {"id": "lamp", "longPressMs": 800}, {"id": "fan"}]}"#)
        #expect(try server.run(["config", "apply", more], stdin: "").0 == 0)
        // Missing file: 2 naming it; an invalid document: diff 2, apply 1, naming the path.
        let (missing, _, said) = try server.run(["config", "apply", "/nonexistent/buttons.json"])
        #expect(missing == 2)
        #expect(said.contains("/nonexistent/buttons.json"))
        let bad = try Self.file(#"{"buttons": [{"id": "door", "maxTaps": 9}]}"#)
        let (diffBad, _, badWords) = try server.run(["config", "diff", bad])
        #expect(diffBad == 2)
        #expect(badWords.contains("maxTaps"), "\(badWords)")
        #expect(try server.run(["config", "apply", bad, "--yes"]).0 == 1)
        #expect(try server.run(["config", "frobnicate"]).0 == 2)
        #expect(try runButtond(["config", "--help"]).1.contains("diff FILE"))
    }

    @Test func deliveriesAndRedeliver() throws {
        let server = try CLIServer()
        try server.post("/api/v1/buttons", #"{"id": "door", "maxTaps": 1}"#)
        let hook = try server.post("/api/v1/buttons/door/handlers", #"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/x"}}"#)
        let handler = hook.json["id"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? ""
        try server.post("/api/v1/buttons/door/press")
        var listing = ""
        for _ in 0..<50 where !listing.contains("dlv_") {
            listing = try server.run(["deliveries", "--handler", handler]).1
            usleep(100_000)
        }
        #expect(listing.hasPrefix("ID"))
        let id = try #require(listing.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix("dlv_") })
        #expect(listing.contains("door") && listing.contains("tap"))
        #expect(try server.run(["deliveries", "--status", "nonsense"]).0 == 1)
        let (status, out, err) = try server.run(["redeliver", String(id)])
        #expect(status == 0 || err.contains("being attempted"), "\(err)")
        if status == 0 { #expect(out.contains(String(id))) }
        #expect(try server.run(["redeliver", "dlv_nope"]).0 == 1)
        #expect(try server.run(["redeliver"]).0 == 2)
    }

    @Test func tokensMadeListedAndRevoked() throws {
        let server = try CLIServer(["--admin-token", "admin-token-for-cli-tokens"])
        let admin = ["--token", "admin-token-for-cli-tokens"]
        let (made, token, _) = try server.run(["token", "make", "lobby", "--role", "press", "--group", "lobby", "--group", "hall", "--expires", "12h"] + admin)
        #expect(made == 0)
        let value = token.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(value.hasPrefix("bdt_"))
        let (listed, table, _) = try server.run(["tokens"] + admin)
        #expect(listed == 0)
        #expect(table.contains("lobby") && table.contains("press") && table.contains("lobby,hall"))
        #expect(!table.contains(value))
        // The token works, then is revoked.
        #expect(try server.run(["buttons", "--token", value]).0 == 0)
        #expect(try server.run(["token", "revoke", "lobby"] + admin).0 == 0)
        #expect(try server.run(["buttons", "--token", value]).0 == 1)
        #expect(try server.run(["token", "revoke", "lobby"] + admin).0 == 1)
        #expect(try server.run(["token", "make", "x"] + admin).0 == 2)  // no --role
        #expect(try server.run(["token", "make", "x", "--role", "press", "--expires", "soon"] + admin).0 == 2)
        #expect(try server.run(["token", "make", "x", "--role", "boss"] + admin).0 == 1)
        #expect(try runButtond(["token", "--help"]).0 == 0)
        #expect(try runButtond(["deliveries", "--help"]).0 == 0)
    }

    /// Like `tail -n 2 -f`: the last two events, then the new ones as they come.
    @Test func eventsFollowStartsFromTheLastN() throws {
        let server = try CLIServer()
        try server.post("/api/v1/buttons", #"{"id": "door", "maxTaps": 1}"#)
        for _ in 0..<3 { try server.post("/api/v1/buttons/door/press") }
        let output = NSTemporaryDirectory() + "buttond-follow-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ServerProcess.binary)
        process.arguments = ["events", "--follow", "--limit", "2", "--server", server.url]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        try process.run()
        defer { process.terminate() }
        func lines() -> [Substring] { ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n") }
        for _ in 0..<100 where lines().count < 2 { usleep(50_000) }
        #expect(lines().count == 2)
        try server.post("/api/v1/buttons/door/press")
        for _ in 0..<100 where lines().count < 6 { usleep(50_000) }
        let seqs = lines().compactMap { line -> Int64? in
            if case .int(let seq)? = (try? JSONParser.parse(Array(line.utf8)))?["seq"] { return seq }
            return nil
        }
        #expect(seqs.count == 6, "\(lines())")
        #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count)
    }

    /// `--config FILE` applies its file at start and again on SIGHUP; a bad file then is logged
    /// at warn and changes nothing.
    @Test func sighupAppliesTheConfigFileAgain() throws {
        let file = try Self.file(#"{"buttons": [{"id": "door"}]}"#)
        let server = try CLIServer(["--config", file])
        #expect(server.process.log.contains("config applied"))
        #expect(server.process.log.contains("buttons_created=1"))
        try #"{"buttons": [{"id": "door", "label": "Front"}, {"id": "fan"}]}"#.write(toFile: file, atomically: true, encoding: .utf8)
        kill(server.process.pid, SIGHUP)
        var fan = 0
        for _ in 0..<100 where fan != 200 {
            fan = try server.process.client.get("/api/v1/buttons/fan").status
            usleep(50_000)
        }
        #expect(fan == 200)
        #expect(try server.process.client.get("/api/v1/buttons/door").json["label"] == "Front")
        try #"{"buttons": [{"id": "door", "longpressMs": 9}]}"#.write(toFile: file, atomically: true, encoding: .utf8)
        kill(server.process.pid, SIGHUP)
        for _ in 0..<100 where !server.process.log.contains("was not applied") { usleep(50_000) }
        #expect(server.process.log.contains("level=warn msg=\"the config file was not applied; nothing changed\""), "\(server.process.log)")
        #expect(server.process.log.contains("longpressMs"))
        #expect(try server.process.client.get("/api/v1/buttons/fan").status == 200)
    }
}
