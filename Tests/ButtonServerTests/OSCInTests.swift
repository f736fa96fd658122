import CurlHTTP
import Foundation
import TestSupport
import OSC
import Testing

/// OSC input (SPEC §10) from real senders (liblo's oscsend, a plain UDP socket), through the
/// same sequencer as HTTP.
@Suite(.serialized) struct OSCInTests {
    func server(allow: [String]? = nil, feedback: [String] = []) throws -> (TestServer, Int) {
        let port = freeOSCPort()
        let server = try TestServer(dataDir: NSTemporaryDirectory() + "buttond-oscin-\(UUID().uuidString)") { options in
            options.oscPort = port
            options.oscAllow = allow
            options.oscFeedback = feedback
        }
        _ = try server.createButton(#"{"id": "door"}"#)
        return (server, port)
    }

    func types(_ server: TestServer, count: Int) throws -> [String] {
        var types: [String] = []
        _ = eventually {
            types = (try? TestServer.types(server.client.get("/api/v1/events?limit=100"))) ?? []
            return types.count >= count
        }
        return types
    }

    @Test func aMomentaryButtonAsTouchOSCSendsIt() throws {
        let (server, port) = try server()
        defer { server.stop() }
        try oscsend(port, "/buttond/button/door", "f", "1.0")
        try oscsend(port, "/buttond/button/door", "f", "0.0")
        let types = try types(server, count: 4)
        #expect(types.prefix(3) == ["touch-down", "touch-up-inside", "tap"])
        // Events from OSC input say so, as MQTT's say "mqtt" and a named token's its name.
        let events = try server.client.get("/api/v1/events?limit=100").json["events"]?.array ?? []
        #expect(events.prefix(3).allSatisfy { $0["by"] == .string("osc") })
    }

    @Test func pressDownWithTFaceAndChoose() throws {
        let (server, port) = try server()
        defer { server.stop() }
        _ = try server.createButton(#"{"id": "lamp", "kind": "toggle"}"#)
        _ = try server.post("/api/v1/sheets", #"{"id": "show", "options": [{"id": "a"}, {"id": "b"}]}"#)
        try oscsend(port, "/buttond/button/door/press")
        #expect(try types(server, count: 3).prefix(3) == ["touch-down", "touch-up-inside", "tap"])
        let t = Int64(Date().timeIntervalSince1970 * 1000) + 1000
        try oscsend(port, "/buttond/button/door/down", "h", String(t))
        #expect(eventually { (try? server.client.get("/api/v1/events?limit=100").text.contains(#""t":\#(t)"#)) == true })
        try oscsend(port, "/buttond/button/lamp/face", "i", "1")
        #expect(eventually { (try? server.client.get("/api/v1/buttons/lamp").json["state"]?["face"]) == .int(1) })
        try oscsend(port, "/buttond/sheet/show/choose", "s", "b")
        #expect(eventually { (try? server.client.get("/api/v1/events?limit=100").text.contains(#""option":"b""#)) == true })
    }

    @Test func anUnknownButtonIsAnsweredAndNothingStored() throws {
        let (server, port) = try server()
        defer { server.stop() }
        let socket = OSCReplySocket()
        defer { socket.close() }
        socket.send(OSCCodec.encode(OSCMessage("/buttond/button/nope/press")), to: port)
        let reply = socket.receive()
        #expect(reply?.first?.address == "/buttond/error")
        #expect(reply?.first?.arguments.first == .string("not_found"))
        #expect(reply?.first?.typeTags == "ss")
        #expect(try server.client.get("/api/v1/events?limit=10").json["events"] == .array([]))
    }

    @Test func aSenderOutsideTheAllowListIsDroppedAndCounted() throws {
        let (server, port) = try server(allow: ["10.0.0.0/8"])
        defer { server.stop() }
        try oscsend(port, "/buttond/button/door/press")
        #expect(eventually { (try? server.client.get("/metrics").text.contains(#"buttond_osc_dropped_total{reason="sender"} 1"#)) == true })
        #expect(try server.client.get("/api/v1/events?limit=10").json["events"] == .array([]))
    }

    @Test func tenThousandRandomOrTruncatedPacketsAreCounted() throws {
        let (server, port) = try server()
        defer { server.stop() }
        let socket = OSCReplySocket()
        defer { socket.close() }
        let good = OSCCodec.encode(OSCMessage("/buttond/button/door/face", [.int32(1)]))
        var malformed = 0
        for round in 0..<10_000 {
            var packet: [UInt8]
            if round % 2 == 0 {
                packet = (0..<Int.random(in: 1...64)).map { _ in UInt8.random(in: 0...255) }
            } else {
                packet = Array(good.prefix(Int.random(in: 1..<good.count)))
            }
            if OSCCodec.decode(packet) == nil { malformed += 1 }
            socket.send(packet, to: port)
            if round % 500 == 0 { usleep(2_000) }  // the kernel's buffer is not what is tested
        }
        #expect(try server.client.get("/healthz").status == 200)
        #expect(eventually {
            (try? server.client.get("/metrics").text.contains(#"buttond_osc_dropped_total{reason="malformed"} \#(malformed)"#)) == true
        })
    }

    @Test func feedbackTargetsFollowFaceChanges() throws {
        let target = freeOSCPort()
        let dump = try OSCDump(String(target))
        defer { dump.stop() }
        let (server, port) = try server(feedback: ["osc.udp://127.0.0.1:\(target)"])
        defer { server.stop() }
        _ = try server.createButton(#"{"id": "lamp", "kind": "toggle"}"#)
        try oscsend(port, "/buttond/button/lamp/face", "i", "1")
        #expect(eventually { dump.lines.contains("/buttond/button/lamp/face i 1") })
        #expect(dump.lines.contains(#"/buttond/button/lamp/event s "toggle""#))
    }
}
