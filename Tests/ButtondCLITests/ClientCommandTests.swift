import CurlHTTP
import Foundation
import JSON
import Testing

import TestSupport

/// The client commands as a script runs them: the real binary against a real server.
@Suite("The buttond client commands")
struct ClientCommandTests {
    @Test func pressClientAndExitCodes() throws {
        let server = try CLIServer()
        try server.post("/api/v1/buttons", #"{"id": "door", "longPressMs": 100}"#)
        let (ok, out, _) = try server.run(["press", "door", "--hold", "150"])
        #expect(ok == 0)
        #expect(CLIServer.types(out) == ["touch-down", "long-press", "touch-up-inside", "long-press-end"])
        let (missing, _, err) = try server.run(["press", "nope"])
        #expect(missing == 1)
        #expect(err.contains("no button named 'nope'"))
        #expect(try server.run(["press"]).0 == 2)
        #expect(try server.run(["down", "door"]).0 == 0)
        #expect(try server.run(["up", "door"]).0 == 0)
        let (events, listed, _) = try server.run(["events"])
        #expect(events == 0)
        #expect(listed.split(separator: "\n").count >= 6)
        let (version, text, _) = try runButtond(["version"])
        #expect(version == 0 && text.hasPrefix("buttond "))
        #expect(try runButtond(["--help"]).1.contains("--scripts-dir"))
        #expect(try runButtond(["serve", "--port", "nope"]).0 == 2)
    }

    @Test func versionAsAFlagToo() throws {
        let (status, stdout, _) = try runButtond(["--version"])
        #expect(status == 0)
        #expect(stdout.hasPrefix("buttond "))
        #expect(try runButtond(["version"]).1 == stdout)
    }

    @Test func theClientHoldsForReal() throws {
        let server = try CLIServer()
        try server.post("/api/v1/buttons", #"{"id": "door", "longPressMs": 300}"#)
        let started = Date()
        let (status, stdout, stderr) = try server.run(["press", "door", "--hold", "700"])
        #expect(status == 0, "\(stderr)")
        #expect(Date().timeIntervalSince(started) >= 0.7)
        let history = try server.run(["events"]).1
        #expect(CLIServer.types(history) == ["touch-down", "long-press", "touch-up-inside", "long-press-end"])
        let times = history.split(separator: "\n").compactMap { line -> Int64? in
            if case .int(let t)? = (try? JSONParser.parse(Array(line.utf8)))?["t"] { return t }
            return nil
        }
        #expect((times.last ?? 0) - (times.first ?? 0) >= 700)
        #expect(stdout.contains("long-press-end"))
    }

    @Test func theClientSaysHowToGiveAToken() throws {
        let server = try CLIServer(["--admin-token", "admin-token-0123456789"])
        let (status, _, stderr) = try server.run(["press", "door"])
        #expect(status == 1)
        #expect(stderr.contains("--token") && stderr.contains("BUTTOND_TOKEN"))
    }

    @Test(arguments: ["press", "down", "up", "input", "buttons", "events", "health", "check"])
    func everyCommandHasItsOwnHelp(command: String) throws {
        let (status, stdout, stderr) = try runButtond([command, "--help"])
        #expect(status == 0, "\(command) --help: \(stderr)")
        #expect(stdout.hasPrefix("Usage: buttond \(command)"), "\(stdout)")
        if command != "check" { #expect(stdout.contains("--cacert") && stdout.contains("--server")) }
    }

    @Test func theGeneralHelpShowsCacertForEveryClientCommand() throws {
        let help = try runButtond(["--help"]).1
        for command in ["press", "down", "up", "input", "buttons", "events", "health"] {
            let line = help.split(separator: "\n").first { $0.hasPrefix("  buttond \(command)") } ?? ""
            #expect(line.contains("--cacert"), "\(command): \(line)")
        }
    }

    @Test func healthHonoursServerAndTheEnvironment() throws {
        let server = try CLIServer()
        let (status, out, err) = try server.run(["health"])
        #expect(status == 0, "\(err)")
        #expect(out.hasPrefix("ok"))
        let (viaEnv, _, envErr) = try runButtond(["health"], environment: ["BUTTOND_SERVER": server.url, "BUTTOND_PORT": "1"])
        #expect(viaEnv == 0, "\(envErr)")
        let (closed, _, why) = try runButtond(["health", "--server", "http://127.0.0.1:1"])
        #expect(closed == 1)
        #expect(why.contains("127.0.0.1:1"))
    }
}

/// Stopping the server says so in its log.
@Suite("Shutdown is logged")
struct ShutdownLogTests {
    @Test func sigtermWritesStoppingAndStopped() throws {
        let server = try CLIServer()
        #expect(server.process.stop(SIGTERM) == 0)
        let log = server.process.log
        #expect(log.contains("msg=stopping"), "\(log)")
        #expect(log.contains("msg=stopped"), "\(log)")
    }
}
