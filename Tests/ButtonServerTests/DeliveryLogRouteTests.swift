import ButtonServer
import Foundation
import MicroHTTP
import Testing
import TestSupport
import CurlHTTP

/// The delivery log as the API serves it (`/api/v1/deliveries`): listing, paging and filters,
/// retention as `--delivery-retention` sets it, and what deleting a handler or button leaves.
/// The store's own delivery rows are tested in ButtonStoreTests' DeliveryLogRouteTests.
@Suite("Delivery log over the API")
struct DeliveryLogRouteTests {
    // MARK: Helpers

    static func server(_ configure: (inout ServeOptions) -> Void = { _ in }) throws -> TestServer {
        try TestServer {
            $0.retryScale = 0.01
            $0.shutdownGraceSeconds = 2
            configure(&$0)
        }
    }

    /// A server, a sink for its webhooks, and button `b` (one tap is a `single-tap` at once).
    static func serverWithButton() throws -> (TestServer, Sink) {
        let server = try Self.server()
        let sink = try Sink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        return (server, sink)
    }

    static func button(_ server: TestServer, _ json: String) throws {
        let reply = try server.createButton(json)
        #expect(reply.status == 201, "\(reply.text)")
    }

    /// Adds a handler (`owner` is `buttons/ID` or `sheets/ID`); its secret is trusted by the sink.
    @discardableResult
    static func handler(_ server: TestServer, _ sink: Sink, _ owner: String, _ json: String) throws -> String {
        let reply = try server.post("/api/v1/\(owner)/handlers", json)
        #expect(reply.status == 201, "\(reply.text)")
        let id = try #require(reply.json["id"]?.string)
        if let secret = reply.json["secret"]?.string { try sink.trust(id, secret: secret) }
        return id
    }

    /// A webhook handler's JSON: `{"on": ON, "webhook": {"url": URL, EXTRA}, TOP}`.
    static func hook(_ url: String, on: String = #"["tap"]"#, webhook extra: String = "", top: String = "") -> String {
        "{\"on\": \(on), \"webhook\": {\"url\": \"\(url)\"\(extra)}\(top)}"
    }

    /// Presses a button; returns its tap event.
    @discardableResult
    static func tap(_ server: TestServer, _ button: String = "b") throws -> JSONValue {
        let reply = try server.post("/api/v1/buttons/\(button)/press")
        #expect(reply.status == 200, "\(reply.text)")
        return try #require(reply.json["events"]?.array.first { $0["type"] == "tap" })
    }

    static func list(_ server: TestServer, _ query: String = "") throws -> [JSONValue] {
        let reply = try server.client.get("/api/v1/deliveries" + (query.isEmpty ? "" : "?" + query))
        #expect(reply.status == 200, "\(reply.text)")
        return reply.json["deliveries"]?.array ?? []
    }

    static func detail(_ server: TestServer, _ id: String) throws -> HTTPClient.Reply {
        try server.client.get("/api/v1/deliveries/\(id)")
    }

    static func metric(_ server: TestServer, _ name: String) throws -> Int? {
        let text = try server.client.get("/metrics").text
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    static func outboxDepth(_ server: TestServer) throws -> Int? { try metric(server, "buttond_outbox_depth") }

    static func attemptsEnded(_ server: TestServer, outcome: String) throws -> Int {
        try metric(server, "buttond_deliveries_total{kind=\"webhook\",outcome=\"\(outcome)\"}") ?? 0
    }

    /// The number inside a `dlv_…` id.
    static func key(_ id: JSONValue?) -> Int64? {
        guard let text = id?.string, text.hasPrefix("dlv_") else { return nil }
        return Int64(text.dropFirst(4), radix: 36)
    }

    static func ids(_ rows: [JSONValue]) -> [String] { rows.compactMap { $0["id"]?.string } }

    static func error(_ reply: HTTPClient.Reply) -> String { reply.json["error"]?["field"]?.string ?? "" }

    // MARK: 1. The log: ids, fields, order, paging, filters

    @Test func logListsNewestFirstWithEveryField() throws {
        let (server, sink) = try Self.serverWithButton()
        let first = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok/1")))
        let second = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok/2")))
        var taps: [JSONValue] = []
        for _ in 0..<3 { taps.append(try Self.tap(server)) }

        let rows = try eventually(seconds: 60, { try Self.list(server) }, until: { $0.count == 6 && $0.allSatisfy { $0["status"] == "ok" } })
        try #require(rows.count == 6)
        let keys = rows.compactMap { Self.key($0["id"]) }
        #expect(keys.count == 6)
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 > $1 }, "newest first: \(Self.ids(rows))")
        for row in rows {
            let id = try #require(row["id"]?.string)
            #expect(id.hasPrefix("dlv_") && id.dropFirst(4).allSatisfy { ("0"..."9").contains($0) || ("a"..."z").contains($0) }, "\(id)")
            #expect(row["handler"]?.string == first || row["handler"]?.string == second)
            #expect(row["attempts"] == 1)
            #expect(row["nextAttemptAt"]?.int != nil)
            #expect((row["createdAt"]?.int ?? 0) > 1_600_000_000_000)
            #expect(row["type"] == "tap")
            #expect(row["button"] == "b")
            #expect(row["sheet"] == nil)
            #expect(row["waitingFor"] == nil)
        }
        for handler in [first, second] {
            let mine = rows.filter { $0["handler"]?.string == handler }
            #expect(mine.map { $0["eventSeq"] } == taps.reversed().map { $0["seq"] })
            #expect(mine.map { $0["eventId"] } == taps.reversed().map { $0["id"] })
            #expect(try Self.list(server, "handler=\(handler)").map { $0["id"] } == mine.map { $0["id"] })
        }
        // Each delivery is what the receiver saw as webhook-id.
        #expect(Set(sink.received.compactMap { $0.headers["webhook-id"] }) == Set(Self.ids(rows)))

        let one = try Self.detail(server, Self.ids(rows).last!)
        #expect(one.status == 200)
        #expect(one.json["id"] == rows.last?["id"])
        #expect(one.json["eventSeq"] == taps[0]["seq"])
        #expect(one.json["event"] == taps[0])
        #expect(one.json["attempts"]?.array.count == 1)
        #expect(one.json["attempts"]?.array.first?["number"] == 1)
        #expect(one.json["attempts"]?.array.first?["outcome"] == "ok")
    }

    @Test func beforePagesBackAndAFullPageCarriesNext() throws {
        let (server, sink) = try Self.serverWithButton()
        let hid = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        for _ in 0..<7 { try Self.tap(server) }
        let all = try eventually(seconds: 60, { try Self.list(server, "handler=\(hid)") }, until: { $0.count == 7 && $0.allSatisfy { $0["status"] == "ok" } })
        try #require(all.count == 7)

        let page1 = try server.client.get("/api/v1/deliveries?handler=\(hid)&limit=3").json
        #expect(Self.ids(page1["deliveries"]?.array ?? []) == Array(Self.ids(all)[0..<3]))
        let next1 = try #require(page1["next"]?.string)
        #expect(next1 == Self.ids(all)[2])
        let page2 = try server.client.get("/api/v1/deliveries?handler=\(hid)&limit=3&before=\(next1)").json
        #expect(Self.ids(page2["deliveries"]?.array ?? []) == Array(Self.ids(all)[3..<6]))
        let next2 = try #require(page2["next"]?.string)
        #expect(next2 == Self.ids(all)[5])
        let page3 = try server.client.get("/api/v1/deliveries?handler=\(hid)&limit=3&before=\(next2)").json
        #expect(Self.ids(page3["deliveries"]?.array ?? []) == [Self.ids(all)[6]])
        #expect(page3["next"] == nil, "a short page is the last")

        // Exactly `limit` rows is a full page, even when nothing older is left.
        let full = try server.client.get("/api/v1/deliveries?handler=\(hid)&limit=7").json
        #expect(full["next"]?.string == Self.ids(all)[6])
        #expect(try Self.list(server, "handler=\(hid)&before=\(Self.ids(all)[6])").isEmpty)
        // Strictly older, also without a handler filter.
        #expect(Self.ids(try Self.list(server, "before=\(Self.ids(all)[0])")) == Array(Self.ids(all).dropFirst()))
        #expect(try server.client.get("/api/v1/deliveries?handler=\(hid)").json["next"] == nil)
    }

    @Test func filtersAndRefusedQueries() throws {
        let (server, sink) = try Self.serverWithButton()
        let good = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        let bad = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/status/400"), webhook: #", "maxAttempts": 1"#))
        for _ in 0..<2 { try Self.tap(server) }
        _ = try eventually(seconds: 60, { try Self.list(server) }, until: { $0.count == 4 && $0.allSatisfy { $0["status"] == "ok" || $0["status"] == "failed" } })

        #expect(try Self.list(server, "status=ok").map { $0["handler"]?.string } == [good, good])
        #expect(try Self.list(server, "status=failed").map { $0["handler"]?.string } == [bad, bad])
        #expect(try Self.list(server, "status=failed&handler=\(good)").isEmpty)
        #expect(try Self.list(server, "status=ok&handler=\(good)").count == 2)
        for status in ["pending", "in_flight", "expired", "blocked"] {
            #expect(try Self.list(server, "status=\(status)").isEmpty, "\(status)")
        }
        #expect(try Self.list(server, "handler=hdl_nosuchhandler").isEmpty)

        for status in ["done", "OK", "inflight", "in-flight", ""] {
            let reply = try server.client.get("/api/v1/deliveries?status=\(status)")
            #expect(reply.status == 422, "status=\(status): \(reply.text)")
            #expect(Self.error(reply) == "status")
        }
        for before in ["nope", "dlv_", "dlv_!!", "12345", "dlv_ABC", "evt_abc", "dlv_zzzzzzzzzzzzzzzz", ""] {
            let reply = try server.client.get("/api/v1/deliveries?before=\(before)")
            #expect(reply.status == 422, "before=\(before): \(reply.text)")
            #expect(Self.error(reply) == "before")
        }
        for limit in ["0", "-1", "abc", "1001"] {
            #expect(try server.client.get("/api/v1/deliveries?limit=\(limit)").status == 422, "limit=\(limit)")
        }
        #expect(try Self.detail(server, "dlv_zzzzzz").status == 404)
        #expect(try Self.detail(server, "nonsense").status == 404)
    }

    // MARK: 2. Retention

    @Test func retentionDropsTheOldestFinishedButNeverPendingOnes() throws {
        let server = try Self.server {
            $0.deliveryRetention = 10
            $0.retryScale = 600  // a failed attempt waits ~10 minutes: these stay pending
        }
        let sink = try Sink()
        // The oldest deliveries of all: pending, behind a failed first attempt.
        try Self.button(server, #"{"id": "stuck", "maxTaps": 1}"#)
        let stuck = try Self.handler(server, sink, "buttons/stuck", Self.hook(sink.url("/status/500")))
        for _ in 0..<3 { try Self.tap(server, "stuck") }
        let pending = try eventually(seconds: 60, { try Self.list(server, "handler=\(stuck)") }, until: { $0.last?["attempts"] == 1 })
        #expect(pending.count == 3)

        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let hid = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        var seqs: [JSONValue] = []
        for _ in 0..<15 { seqs.append(try Self.tap(server)["seq"]!) }
        _ = sink.wait { $0.filter { $0.path == "/ok" }.count >= 15 }
        let kept = try eventually(
            seconds: 60, { try Self.list(server, "handler=\(hid)") },
            until: { $0.first?["eventSeq"] == seqs.last && $0.allSatisfy { $0["status"] == "ok" } })
        // Finished deliveries beyond 10 go, oldest first.
        #expect(kept.map { $0["eventSeq"] } == seqs.suffix(10).reversed())
        #expect(try Self.list(server, "status=ok").count == 10)
        let dropped = sink.received(path: "/ok").prefix(5).compactMap { $0.headers["webhook-id"] }
        #expect(dropped.count == 5)
        for id in dropped { #expect(try Self.detail(server, id).status == 404, "\(id) was dropped") }
        // Pending ones are never dropped, though older than everything kept.
        #expect(try Self.list(server, "handler=\(stuck)").map { $0["id"] } == pending.map { $0["id"] })
        #expect(try Self.list(server, "status=pending").count == 3)
        for id in Self.ids(pending) { #expect(try Self.detail(server, id).json["status"] == "pending") }
        #expect(try Self.list(server).count == 13)
    }

    @Test func retentionAllowsOnePercentSlack() throws {
        let server = try Self.server { $0.deliveryRetention = 100 }
        let sink = try Sink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let hid = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        var last: JSONValue?
        for _ in 0..<104 { last = try Self.tap(server)["seq"] }
        let kept = try eventually(
            seconds: 120, { try Self.list(server, "handler=\(hid)&limit=1000") },
            until: { $0.first?["eventSeq"] == last && $0.allSatisfy { $0["status"] == "ok" } })
        // Past 100 + 1 %, trimmed back; never below the retention.
        #expect((100...101).contains(kept.count), "\(kept.count) kept")
    }

    /// A server keeping 10 finished deliveries, with one attempt held in flight at the sink:
    /// that of handler `gone` (returned) on button `gone`.
    static func attemptInFlightOnButtonGone() throws -> (TestServer, Sink, String) {
        let server = try Self.server { $0.deliveryRetention = 10 }
        let sink = try Sink()
        try Self.button(server, #"{"id": "gone", "maxTaps": 1}"#)
        let gone = try Self.handler(server, sink, "buttons/gone", Self.hook(sink.url("/hold/g"), webhook: #", "timeoutMs": 30000"#))
        try Self.tap(server, "gone")
        #expect(sink.wait { $0.count == 1 }.count == 1)
        return (server, sink, gone)
    }

    /// A handler deleted while its attempt is in flight: the attempt ends after its delivery
    /// is gone. The log must still keep exactly `deliveryRetention` finished deliveries.
    @Test func retentionStaysExactAfterAHandlerIsDeletedMidAttempt() throws {
        let (server, sink, gone) = try Self.attemptInFlightOnButtonGone()
        #expect(try server.client.request("DELETE", "/api/v1/handlers/\(gone)").status == 204)
        sink.release("g")
        // The attempt has ended (and was handed to the log) once it is counted.
        #expect(try eventually(seconds: 60, { try Self.attemptsEnded(server, outcome: "ok") }, until: { $0 >= 1 }) == 1)

        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let hid = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        var seqs: [JSONValue] = []
        for _ in 0..<12 { seqs.append(try Self.tap(server)["seq"]!) }
        let kept = try eventually(
            seconds: 60, { try Self.list(server, "handler=\(hid)") },
            until: { $0.first?["eventSeq"] == seqs.last && $0.allSatisfy { $0["status"] == "ok" } })
        #expect(kept.count == 10, "kept \(kept.count) finished deliveries with deliveryRetention = 10")
        #expect(kept.map { $0["eventSeq"] } == seqs.suffix(kept.count).reversed())
    }

    /// The log is full (exactly `deliveryRetention` finished deliveries) when an attempt of a
    /// deleted handler ends: its delivery is gone, so nothing was added and nothing kept may go.
    @Test func aLateAttemptOfADeletedHandlerTrimsNothing() throws {
        let (server, sink, gone) = try Self.attemptInFlightOnButtonGone()

        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let hid = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        var seqs: [JSONValue] = []
        for _ in 0..<10 { seqs.append(try Self.tap(server)["seq"]!) }
        let full = try eventually(
            seconds: 60, { try Self.list(server, "handler=\(hid)") },
            until: { $0.count == 10 && $0.allSatisfy { $0["status"] == "ok" } })
        try #require(full.count == 10)

        #expect(try server.client.request("DELETE", "/api/v1/handlers/\(gone)").status == 204)
        sink.release("g")
        _ = try eventually(seconds: 60, { try Self.attemptsEnded(server, outcome: "ok") }, until: { $0 >= 11 })
        // Deleting a handler waits for the log's pending writes: after this, that attempt is recorded.
        let spare = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/spare"), on: #"["long-press"]"#))
        #expect(try server.client.request("DELETE", "/api/v1/handlers/\(spare)").status == 204)
        let kept = try Self.list(server, "handler=\(hid)")
        #expect(kept.count == 10, "kept \(kept.count) of 10 finished deliveries with deliveryRetention = 10")
        #expect(kept.map { $0["eventSeq"] } == seqs.reversed())
    }

    // MARK: 3. Deleting handlers and buttons: DeliveryLogRouteTests+Deletion.swift
}
