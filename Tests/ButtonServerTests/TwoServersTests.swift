import Foundation
import OSC
import Synchronization
import TestSupport
import Testing

/// Two servers in one test process share nothing a user would notice (issue 42, "nothing
/// process-wide"): each answers with the icon set of its own public directory and judges
/// buttons by it, and one stopping leaves the other delivering webhooks and OSC messages
/// (UDP and TCP) as before.
@Suite struct TwoServersTests {
    /// A public directory whose icon set is `icons`.
    static func publicDirectory(icons: [String]) throws -> String {
        let dir = NSTemporaryDirectory() + "buttond-public-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/icons", withIntermediateDirectories: true)
        for icon in icons {
            #expect(FileManager.default.createFile(atPath: "\(dir)/icons/\(icon).svg", contents: Data("<svg/>".utf8)))
        }
        return dir
    }

    static func icons(_ server: TestServer) throws -> [String] {
        try server.client.get("/api/v1/icons").json["icons"]?.array.compactMap(\.string) ?? []
    }

    @Test func eachServerHasTheIconSetOfItsOwnPublicDirectory() throws {
        let (lamps, doors) = (try Self.publicDirectory(icons: ["lamp", "fan"]), try Self.publicDirectory(icons: ["door"]))
        let first = try TestServer { $0.publicDir = lamps }
        let second = try TestServer { $0.publicDir = doors }
        #expect(try Self.icons(first) == ["fan", "lamp"])
        #expect(try Self.icons(second) == ["door"])
        // Created, patched and imported: each judged by its own server's set.
        #expect(try first.createButton(#"{"id": "k", "icon": "lamp"}"#).status == 201)
        #expect(try first.createButton(#"{"id": "m", "icon": "door"}"#).status == 422)
        #expect(try second.createButton(#"{"id": "k", "icon": "door"}"#).status == 201)
        #expect(try second.createButton(#"{"id": "m", "icon": "lamp"}"#).status == 422)
        #expect(try first.client.request("PATCH", "/api/v1/buttons/k", json: #"{"icon": "fan"}"#).status == 200)
        #expect(try second.client.request("PATCH", "/api/v1/buttons/k", json: #"{"icon": "fan"}"#).status == 422)
        let config = #"{"buttons": [{"id": "k", "icon": "door"}]}"#
        #expect(try first.client.request("PUT", "/api/v1/config", json: config).status == 422)
        #expect(try second.client.request("PUT", "/api/v1/config", json: config).status == 200)
    }

    @Test func oneStoppingLeavesTheOtherDeliveringWebhooksAndOSC() throws {
        let sink = try Sink()
        defer { sink.stop() }
        let received = Mutex<[String]>([])
        let receiver = try OSCServer(host: "127.0.0.1", port: 0, allow: { _ in true }) { messages, _, _ in
            received.withLock { $0 += messages.map(\.address) }
        }
        receiver.start()
        defer { receiver.stop() }
        let osc = { (prefix: String) in received.withLock { $0.filter { $0.hasPrefix(prefix) }.count } }
        let servers = try (0..<2).map { _ in try TestServer() }
        for (index, server) in servers.enumerated() {
            #expect(try server.createButton(#"{"id": "b\#(index)", "maxTaps": 1}"#).status == 201)
            for handler in [
                #"{"on": ["tap"], "webhook": {"url": "\#(sink.url("/to\(index)"))"}}"#,
                #"{"on": ["tap"], "osc": {"url": "osc.udp://127.0.0.1:\#(receiver.port)", "address": "/udp\#(index)/{seq}"}}"#,
                #"{"on": ["tap"], "osc": {"url": "osc.tcp://127.0.0.1:\#(receiver.port)", "address": "/tcp\#(index)/{seq}"}}"#,
            ] {
                let created = try server.post("/api/v1/buttons/b\(index)/handlers", handler)
                #expect(created.status == 201, "\(created.text)")
            }
            #expect(try server.post("/api/v1/buttons/b\(index)/press").status == 200)
        }
        #expect(sink.wait { $0.count == 2 }.map(\.path).sorted() == ["/to0", "/to1"])
        #expect(eventually { ["/udp0", "/tcp0", "/udp1", "/tcp1"].allSatisfy { osc($0) == 1 } }, "\(received.withLock { $0 })")

        servers[0].stop()
        for _ in 0..<3 { #expect(try servers[1].post("/api/v1/buttons/b1/press").status == 200) }
        #expect(sink.wait { $0.count == 5 }.filter { $0.path == "/to1" }.count == 4)
        #expect(eventually { osc("/udp1") == 4 && osc("/tcp1") == 4 }, "\(received.withLock { $0 })")
        #expect(osc("/udp0") == 1 && osc("/tcp0") == 1)
    }
}
