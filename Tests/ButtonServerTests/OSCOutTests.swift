import CurlHTTP
import Foundation
import TestSupport
import Testing

/// OSC handlers (SPEC §10) delivering to real receivers: oscdump over UDP and TCP, and a
/// SLIP receiver as ETC Eos has, from the real binary, across a kill -9.
@Suite(.serialized) struct OSCOutTests {
    static let options = (0..<20).map { "o\($0)" }

    /// A sheet `show` with 20 options and a handler on `select` to `url`.
    func showWithHandler(_ server: ServerProcess, url: String, slip: Bool = false) throws {
        let options = Self.options.map { #"{"id": "\#($0)"}"# }.joined(separator: ",")
        #expect(try server.client.request("POST", "/api/v1/sheets", json: #"{"id": "show", "options": [\#(options)]}"#).status == 201)
        let handler = #"""
            {"on": ["select"], "osc": {"url": "\#(url)", "address": "/cue/{option}/start", "slip": \#(slip),
             "args": [{"type": "i", "value": "{face}"}, {"type": "s", "value": "{button}"}, {"type": "f", "value": 1.5}]}}
            """#
        let created = try server.client.request("POST", "/api/v1/sheets/show/handlers", json: handler)
        #expect(created.status == 201, "\(created.text)")
    }

    func choose(_ server: ServerProcess, _ options: some Sequence<String>) throws {
        for option in options {
            #expect(try server.client.request("POST", "/api/v1/sheets/show/choose", json: #"{"option": "\#(option)"}"#).status == 200)
        }
    }

    static func expected(_ options: some Sequence<String>) -> [String] {
        options.map { #"/cue/\#($0)/start isf 0 "show" 1.500000"# }
    }

    /// Each delivery once at least, in order: duplicates (at-least-once, after a kill) only
    /// repeat what came just before.
    static func inOrder(_ lines: [String]) -> [String] {
        var seen: [String] = []
        for line in lines where seen.last != line && !seen.contains(line) { seen.append(line) }
        return seen
    }

    @Test func udpDeliversTypedArgumentsInOrderAcrossAKill() throws {
        let dir = NSTemporaryDirectory() + "buttond-osc-\(UUID().uuidString)"
        let port = freeOSCPort()
        let dump = try OSCDump(String(port))
        defer { dump.stop() }
        var server = try ServerProcess(dataDir: dir)
        try showWithHandler(server, url: "osc.udp://127.0.0.1:\(port)")
        try choose(server, Self.options.prefix(10))
        server.stop(SIGKILL)
        server = try ServerProcess(dataDir: dir)
        defer { server.stop() }
        try choose(server, Self.options.suffix(10))
        #expect(eventually { Self.inOrder(dump.lines).count >= 20 })
        #expect(Self.inOrder(dump.lines) == Self.expected(Self.options))
        // The last message has arrived; its attempt is recorded a moment later, by the log's writer.
        let newestOutcome = { () -> String in
            let log = (try? server.client.get("/api/v1/deliveries?limit=1").json)?["deliveries"]
            guard case .array(let rows)? = log else { return "no deliveries" }
            return rows.first?["outcome"]?.string ?? "none yet"
        }
        #expect(eventually { newestOutcome() == "ok" }, "the newest delivery's outcome: \(newestOutcome())")
    }

    @Test func tcpDelivers() throws {
        let port = freeOSCPort()
        let dump = try OSCDump("osc.tcp://:\(port)")
        defer { dump.stop() }
        let server = try ServerProcess(dataDir: NSTemporaryDirectory() + "buttond-osc-\(UUID().uuidString)")
        defer { server.stop() }
        try showWithHandler(server, url: "osc.tcp://127.0.0.1:\(port)")
        try choose(server, Self.options.prefix(5))
        #expect(eventually { dump.lines.count >= 5 })
        #expect(dump.lines == Self.expected(Self.options.prefix(5)))
    }

    @Test func slipTCPDeliversAndAFailedConnectIsRetried() throws {
        let receiver = SLIPReceiver()
        defer { receiver.stop() }
        let server = try ServerProcess(dataDir: NSTemporaryDirectory() + "buttond-osc-\(UUID().uuidString)")
        defer { server.stop() }
        try showWithHandler(server, url: "osc.tcp://127.0.0.1:\(receiver.port)", slip: true)
        try choose(server, Self.options.prefix(3))
        #expect(eventually { receiver.messages.count >= 3 })
        #expect(receiver.messages.map(\.address) == ["/cue/o0/start", "/cue/o1/start", "/cue/o2/start"])
        #expect(receiver.messages.first?.arguments == [.int32(0), .string("show"), .float(1.5)])
    }

    @Test(arguments: [
        (#"{"url": "osc.udp://127.0.0.1:9000", "address": "/x", "args": [{"type": "i", "value": "abc"}]}"#, "osc.args[0].value"),
        (#"{"url": "osc.udp://169.254.1.1:9000", "address": "/x"}"#, "osc.url"),
        (#"{"url": "osc.udp://127.0.0.1:9000", "address": "/x", "slip": true}"#, "osc.slip"),
        (#"{"url": "http://127.0.0.1:9000", "address": "/x"}"#, "osc.url"),
        (#"{"url": "osc.udp://127.0.0.1:9000", "address": "no slash"}"#, "osc.address"),
        (#"{"url": "osc.udp://127.0.0.1:9000", "address": "/x", "args": [{"type": "q"}]}"#, "osc.args[0].type"),
    ])
    func refusedAtRegistration(osc: String, field: String) throws {
        let server = try TestServer(dataDir: NSTemporaryDirectory() + "buttond-osc-\(UUID().uuidString)")
        defer { server.stop() }
        _ = try server.createButton(#"{"id": "door"}"#)
        let reply = try server.post("/api/v1/buttons/door/handlers", #"{"on": ["tap"], "osc": \#(osc)}"#)
        #expect(reply.status == 422)
        #expect(reply.json["error"]?["field"] == .string(field), "\(reply.text)")
    }

    @Test func testRouteAndPressView() throws {
        let port = freeOSCPort()
        let dump = try OSCDump(String(port))
        defer { dump.stop() }
        let server = try TestServer(dataDir: NSTemporaryDirectory() + "buttond-osc-\(UUID().uuidString)")
        defer { server.stop() }
        _ = try server.createButton(#"{"id": "door"}"#)
        let created = try server.post(
            "/api/v1/buttons/door/handlers",
            #"{"on": ["tap"], "osc": {"url": "osc.udp://127.0.0.1:\#(port)", "address": "/go/{button}", "args": [{"type": "T"}]}}"#)
        guard case .string(let id)? = created.json["id"] else { Issue.record("\(created.text)"); return }
        #expect(try server.post("/api/v1/handlers/\(id)/test").status < 300)
        #expect(eventually { dump.lines.contains("/go/door T #T") })
    }
}
