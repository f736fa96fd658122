import ButtonServer
import Foundation
import MicroHTTP
import Testing
import TestSupport
import CurlHTTP

/// The delivery log's filters for a live show (SPEC §7 "A panel for a live show"): by kind,
/// by button or sheet, and `status=failing`, each combined with the others.
extension DeliveryLogRouteTests {
    /// Button `b` with a webhook, sheet `s` with a webhook and an OSC handler (UDP to a port no
    /// one listens on: a datagram sent is delivered), each fired twice.
    @Test func filtersByKindButtonAndSheet() throws {
        let (server, sink) = try Self.serverWithButton()
        #expect(try server.post("/api/v1/sheets", #"{"id": "s", "options": [{"id": "go"}]}"#).status == 201)
        let onButton = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok/b")))
        let onSheet = try Self.handler(server, sink, "sheets/s", Self.hook(sink.url("/ok/s"), on: #"["select"]"#))
        let osc = try Self.handler(
            server, sink, "sheets/s",
            "{\"on\": [\"select\"], \"osc\": {\"url\": \"osc.udp://127.0.0.1:\(freeOSCPort())\", \"address\": \"/go\"}}")
        for _ in 0..<2 {
            try Self.tap(server)
            #expect(try server.post("/api/v1/sheets/s/choose", #"{"option": "go"}"#).status == 200)
        }
        let all = try eventually(seconds: 60, { try Self.list(server) }, until: { $0.count == 6 && $0.allSatisfy { $0["status"] == "ok" } })
        try #require(all.count == 6, "\(all)")
        func handlers(_ query: String) throws -> [String] { try Self.list(server, query).compactMap { $0["handler"]?.string } }

        #expect(try handlers("kind=webhook").sorted() == [onButton, onButton, onSheet, onSheet].sorted())
        #expect(try handlers("kind=osc") == [osc, osc])
        #expect(try handlers("kind=script").isEmpty)
        #expect(try handlers("kind=mqtt").isEmpty, "no MQTT here: the server publishes nothing")
        #expect(try handlers("kind=webhook,script,osc").sorted() == [onButton, onButton, onSheet, onSheet, osc, osc].sorted())
        #expect(try handlers("kind=osc,mqtt") == [osc, osc])
        #expect(try handlers("button=b") == [onButton, onButton])
        #expect(try handlers("sheet=s").sorted() == [onSheet, onSheet, osc, osc].sorted())
        #expect(try Self.list(server, "sheet=s").allSatisfy { $0["sheet"] == "s" && $0["button"] == nil })
        #expect(try handlers("sheet=s&kind=osc") == [osc, osc])
        #expect(try handlers("button=b&kind=osc").isEmpty)
        #expect(try handlers("handler=\(onSheet)&kind=osc").isEmpty, "a handler of another kind")
        #expect(try handlers("handler=\(osc)&kind=osc&sheet=s&status=ok") == [osc, osc])
        #expect(try handlers("button=nobody").isEmpty)
        // Newest first still, and a full page pages on under a filter.
        let page = try server.client.get("/api/v1/deliveries?sheet=s&limit=2").json
        let next = try #require(page["next"]?.string)
        let rest = try Self.list(server, "sheet=s&before=\(next)")
        #expect(Self.ids(page["deliveries"]?.array ?? []) + Self.ids(rest) == Self.ids(try Self.list(server, "sheet=s")))

        for (query, field) in [
            ("kind=http", "kind"), ("kind=", "kind"), ("kind=Webhook", "kind"), ("kind=osc,", "kind"), ("kind=osc,,mqtt", "kind"), ("button=B%20B", "button"), ("button=", "button"),
            ("sheet=..", "sheet"), ("button=b&sheet=s", "sheet"), ("status=failed-ish", "status"),
        ] {
            let reply = try server.client.get("/api/v1/deliveries?\(query)")
            #expect(reply.status == 422, "\(query): \(reply.text)")
            #expect(Self.error(reply) == field, "\(query): \(reply.text)")
        }
        let typo = try server.client.get("/api/v1/deliveries?knd=osc")
        #expect(typo.status == 400 && typo.json["error"]?["code"] == "unknown_parameter", "\(typo.text)")
    }

    /// `failing`: pending deliveries with a failed attempt, not those waiting behind them
    /// (no attempt yet), nor finished ones.
    @Test func failingListsPendingDeliveriesWithAFailedAttempt() throws {
        let server = try Self.server { $0.retryScale = 600 }  // a failed attempt waits ~10 minutes
        let sink = try Sink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        try Self.button(server, #"{"id": "c", "maxTaps": 1}"#)
        let failing = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/status/500")))
        let broken = try Self.handler(server, sink, "buttons/c", Self.hook(sink.url("/status/400"), webhook: #", "maxAttempts": 1"#))
        let fine = try Self.handler(server, sink, "buttons/c", Self.hook(sink.url("/ok")))
        for _ in 0..<3 { try Self.tap(server, "b") }
        try Self.tap(server, "c")
        let rows = try eventually(
            seconds: 60, { try Self.list(server) },
            until: { rows in
                rows.count == 5 && rows.filter { $0["handler"]?.string == failing }.last?["attempts"] == 1
                    && rows.allSatisfy { $0["handler"]?.string == failing || $0["status"] == "ok" || $0["status"] == "failed" }
            })
        try #require(rows.count == 5)
        let mine = rows.filter { $0["handler"]?.string == failing }
        // The oldest was tried and failed; the two behind it wait for it, untried.
        let first = try #require(mine.last)
        #expect(first["status"] == "pending" && first["outcome"] == "http_status")
        #expect(mine.dropLast().allSatisfy { $0["attempts"] == 0 && $0["status"] == "pending" })

        #expect(Self.ids(try Self.list(server, "status=failing")) == [first["id"]?.string ?? "?"])
        #expect(Self.ids(try Self.list(server, "status=failing&button=b&kind=webhook")) == [first["id"]?.string ?? "?"])
        #expect(try Self.list(server, "status=failing&button=c").isEmpty)
        #expect(try Self.list(server, "status=failing&handler=\(broken)").isEmpty, "failed for good is not failing")
        #expect(try Self.list(server, "status=failing&handler=\(fine)").isEmpty)
        #expect(try Self.list(server, "status=failing&kind=osc").isEmpty)
        #expect(try Self.list(server, "status=pending").count == 3)
        #expect(try Self.list(server, "status=failed").compactMap { $0["handler"]?.string } == [broken])
    }
}
