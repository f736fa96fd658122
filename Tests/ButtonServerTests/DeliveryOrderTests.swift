import ButtonServer
import Foundation
import MicroHTTP
import Testing
import TestSupport
import CurlHTTP

/// The delivery log suite, continued: order per handler, shaping a request (method, body
/// template, headers). What the press token sees is in PressViewTests.swift.
extension DeliveryLogRouteTests {
    // MARK: 4. Order

    @Test func anOrderedHandlerHoldsLaterDeliveriesBehindARetry() throws {
        let server = try Self.server { $0.retryScale = 600 }  // the retry waits ~10 minutes
        let sink = try Sink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let hid = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/fail-first/o")))
        #expect(try server.client.get("/api/v1/handlers/\(hid)").json["ordered"] == true)
        var seqs: [JSONValue] = []
        for _ in 0..<3 { seqs.append(try Self.tap(server)["seq"]!) }

        let rows = try eventually(
            seconds: 60, { try Self.list(server, "handler=\(hid)") },
            until: { $0.count == 3 && $0.last?["attempts"] == 1 && $0.last?["status"] == "pending" && $0.first?["waitingFor"] != nil })
        try #require(rows.count == 3)
        let head = try #require(rows.last?["id"]?.string)
        #expect(rows.map { $0["eventSeq"] } == seqs.reversed())
        #expect(rows.map { $0["status"]?.string ?? "" } == ["pending", "pending", "pending"])
        #expect(rows.map { $0["attempts"]?.int ?? -1 } == [0, 0, 1])
        #expect(rows.map { $0["waitingFor"]?.string } == [head, head, nil])
        #expect(try Self.list(server, "status=pending").map { $0["waitingFor"]?.string } == [head, head, nil])
        #expect(try Self.detail(server, Self.ids(rows)[0]).json["waitingFor"]?.string == head)
        // Pending ones page like the rest.
        let firstPage = try server.client.get("/api/v1/deliveries?status=pending&limit=2").json
        #expect(Self.ids(firstPage["deliveries"]?.array ?? []) == Array(Self.ids(rows).prefix(2)))
        let cursor = try #require(firstPage["next"]?.string)
        #expect(Self.ids(try Self.list(server, "status=pending&limit=2&before=\(cursor)")) == [head])
        // The later ones were never tried (attempts 0 above) and nothing else reached the sink.
        #expect(sink.received.count == 1, "later deliveries wait behind the first one's retry")

        // One more attempt of the head now: it and then the rest go, in order.
        #expect(try server.post("/api/v1/deliveries/\(head)/redeliver").status == 202)
        let got = sink.wait { $0.count >= 4 }
        #expect(got.map { $0.json?["seq"] } == [seqs[0], seqs[0], seqs[1], seqs[2]])
        #expect(got.map { $0.headers["webhook-id"] } == [head, head, Self.ids(rows)[1], Self.ids(rows)[0]].map { Optional($0) })
        let done = try eventually(seconds: 60, { try Self.list(server, "handler=\(hid)") }, until: { $0.allSatisfy { $0["status"] == "ok" } })
        #expect(done.allSatisfy { $0["waitingFor"] == nil })
        #expect(done.map { $0["attempts"]?.int ?? -1 } == [1, 1, 2])
    }

    @Test func anUnorderedHandlerDeliversPastARetry() throws {
        let server = try Self.server { $0.retryScale = 600 }
        let sink = try Sink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let created = try server.post("/api/v1/buttons/b/handlers", Self.hook(sink.url("/fail-first/u"), top: #", "ordered": false"#))
        #expect(created.status == 201, "\(created.text)")
        #expect(created.json["ordered"] == false)
        let hid = try #require(created.json["id"]?.string)
        try sink.trust(hid, secret: try #require(created.json["secret"]?.string))
        #expect(try server.client.get("/api/v1/handlers/\(hid)").json["ordered"] == false)
        #expect(try server.client.get("/api/v1/buttons/b/handlers").json["handlers"]?.array.first?["ordered"] == false)

        var seqs: [JSONValue] = []
        for _ in 0..<3 { seqs.append(try Self.tap(server)["seq"]!) }
        let got = sink.wait { $0.count >= 3 }
        #expect(got.map { $0.json?["seq"] } == seqs, "the later ones go while the first waits for its retry")
        #expect(got.map(\.n) == [1, 2, 3])
        let rows = try eventually(
            seconds: 60, { try Self.list(server, "handler=\(hid)") },
            until: { (rows: [JSONValue]) -> Bool in
                rows.map { $0["status"]?.string ?? "" } == ["ok", "ok", "pending"] && rows.last?["attempts"] == 1
            })
        #expect(rows.map { $0["status"]?.string ?? "" } == ["ok", "ok", "pending"])
        #expect(rows.allSatisfy { $0["waitingFor"] == nil })
        #expect(try Self.list(server, "status=pending").map { $0["waitingFor"] } == [nil])

        // A wrong type is a 400; it can be turned back on.
        #expect(try server.client.request("PATCH", "/api/v1/handlers/\(hid)", json: #"{"ordered": "no"}"#).status == 400)
        let patched = try server.client.request("PATCH", "/api/v1/handlers/\(hid)", json: #"{"ordered": true}"#)
        #expect(patched.status == 200)
        #expect(patched.json["ordered"] == true)
        #expect(try server.client.get("/api/v1/handlers/\(hid)").json["ordered"] == true)
    }

    // MARK: 5. Shaping a request

    @Test func homeAssistantShapedRequest() throws {
        let server = try Self.server()
        let sink = try Sink()
        try Self.button(server, #"{"id": "kitchen", "label": "Kitchen", "maxTaps": 1}"#)
        let hid = try Self.handler(
            server, sink, "buttons/kitchen",
            Self.hook(
                sink.url("/api/services/light/toggle"),
                webhook: #", "body": {"entity_id": "light.kitchen"}, "headers": {"Authorization": "Bearer abc"}"#))
        let stored = try server.client.get("/api/v1/handlers/\(hid)").json["webhook"]
        #expect(stored?["method"] == "POST")
        #expect(stored?["body"] == .object(["entity_id": "light.kitchen"]))
        try Self.tap(server, "kitchen")

        let request = try #require(sink.wait { $0.count == 1 }.first)
        let expected = Array(#"{"entity_id":"light.kitchen"}"#.utf8)
        #expect(request.method == "POST")
        #expect(request.target == "/api/services/light/toggle")
        #expect(request.body == expected, "\(String(decoding: request.body, as: UTF8.self))")
        #expect(request.headers["authorization"] == "Bearer abc")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["content-length"] == String(expected.count))
        #expect(request.headers["user-agent"]?.hasPrefix("buttond/") == true)
        #expect(request.headers["webhook-id"]?.hasPrefix("dlv_") == true)
        #expect(request.headers["webhook-timestamp"].flatMap { Int64($0) } != nil)
        #expect(request.verifiedBy == [hid], "the template's bytes are what is signed")
        #expect(request.headers["expect"] == nil)
        #expect(request.headers["transfer-encoding"] == nil)

        let row = try eventually(seconds: 60, { try Self.list(server, "handler=\(hid)") }, until: { $0.first?["status"] == "ok" })
        #expect(row.first?["id"]?.string == request.headers["webhook-id"])
        let detail = try Self.detail(server, try #require(row.first?["id"]?.string)).json
        #expect(detail["body"] == .object(["entity_id": "light.kitchen"]))
        #expect(detail["event"]?["type"] == "tap")
    }

    @Test func companionShapedPutFillsBodyAndHeadersButNotTheURL() throws {
        let server = try Self.server()
        let sink = try Sink()
        try Self.button(server, #"{"id": "studio-1", "label": "On Air", "maxTaps": 1}"#)
        let hid = try Self.handler(
            server, sink, "buttons/studio-1",
            Self.hook(
                sink.url("/api/location/1/0/2/press?via=buttond"),
                webhook: #", "method": "PUT", "body": {"button": "{button}", "label": "{label}"}, "headers": {"X-Source": "{button}/{type}", "X-Plain": "no {placeholder} here", "content-type": "application/vnd.companion+json", "User-Agent": "studio"}"#
            ))
        #expect(try server.client.get("/api/v1/handlers/\(hid)").json["webhook"]?["method"] == "PUT")
        try Self.tap(server, "studio-1")

        let request = try #require(sink.wait { $0.count == 1 }.first)
        #expect(request.method == "PUT")
        #expect(request.target == "/api/location/1/0/2/press?via=buttond")
        #expect(request.body == Array(#"{"button":"studio-1","label":"On Air"}"#.utf8), "\(String(decoding: request.body, as: UTF8.self))")
        #expect(request.headers["x-source"] == "studio-1/tap")
        #expect(request.headers["x-plain"] == "no {placeholder} here")
        #expect(request.headers["content-type"] == "application/vnd.companion+json", "the handler's replaces buttond's, sent once")
        #expect(request.headers["user-agent"] == "studio")
        #expect(request.verifiedBy == [hid])
    }

    @Test func everyPlaceholderAndTheWholeEvent() throws {
        let server = try Self.server()
        let sink = try Sink()
        try Self.button(server, #"{"id": "lamp", "kind": "toggle", "label": "Lamp {id}", "maxTaps": 1}"#)
        let template = #"""
            {"button": "{button}", "type": "{type}", "seq": "{seq}", "t": "{t}", "face": "face={face}", "option": "[{option}]",
             "label": "{label}", "id": "{id}", "event": "{event}", "notWhole": " {event}", "keys": {"{button}": "{type}"},
             "kept": [1, true, null, "{unknown} {{ states('x') }} {seq"]}
            """#
        let hid = try Self.handler(
            server, sink, "buttons/lamp",
            Self.hook(
                sink.url("/lamp"), on: #"["toggle"]"#,
                webhook: #", "method": "PATCH", "body": \#(template), "headers": {"X-Face": "{face}", "X-Where": "{button}:{type}:{seq}:{id}"}"#))
        let press = try server.post("/api/v1/buttons/lamp/press")
        let toggle = try #require(press.json["events"]?.array.first { $0["type"] == "toggle" })
        let seq = try #require(toggle["seq"]?.int)
        let t = try #require(toggle["t"]?.int)
        let eventID = try #require(toggle["id"]?.string)
        #expect(toggle["data"]?["face"] == 1)

        let request = try #require(sink.wait { $0.count == 1 }.first)
        let expected: JSONValue = .object([
            "button": "lamp", "type": "toggle", "seq": .int(seq), "t": .int(t), "face": "face=1",
            "option": "[]", "label": "Lamp {id}", "id": .string(eventID), "event": toggle, "notWhole": " {event}",
            "keys": .object(["{button}": "toggle"]),
            "kept": .array([.int(1), .bool(true), .null, "{unknown} {{ states('x') }} {seq"]),
        ])
        #expect(request.method == "PATCH")
        #expect(request.json == expected)
        // Compact, keys sorted: the same inputs always give the same bytes.
        #expect(request.body == JSONWriter.encode(expected), "\(String(decoding: request.body, as: UTF8.self))")
        #expect(String(decoding: request.body, as: UTF8.self).hasPrefix(#"{"button":"lamp","event":{"#))
        #expect(request.headers["x-face"] == "1")
        #expect(request.headers["x-where"] == "lamp:toggle:\(seq):\(eventID)")
        #expect(request.verifiedBy == [hid])
    }

    @Test func getSendsNoBodyAndDeleteSendsItsTemplate() throws {
        let server = try Self.server()
        let sink = try Sink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let get = try Self.handler(
            server, sink, "buttons/b",
            Self.hook(sink.url("/state?entity=light.kitchen"), webhook: #", "method": "GET", "headers": {"X-Button": "{button}"}"#))
        let delete = try Self.handler(
            server, sink, "buttons/b", Self.hook(sink.url("/things/1"), webhook: #", "method": "DELETE", "body": {"id": "{id}"}"#))
        let tap = try Self.tap(server)
        let got = sink.wait { $0.count == 2 }
        let g = try #require(got.first { $0.method == "GET" })
        #expect(g.target == "/state?entity=light.kitchen")
        #expect(g.body.isEmpty)
        #expect(g.headers["content-length"] == nil || g.headers["content-length"] == "0")
        #expect(g.headers["x-button"] == "b")
        #expect(g.verifiedBy == [get], "an empty body is signed as empty")
        let d = try #require(got.first { $0.method == "DELETE" })
        #expect(d.target == "/things/1")
        #expect(d.body == Array("{\"id\":\"\(tap["id"]?.string ?? "")\"}".utf8))
        #expect(d.verifiedBy == [delete])
    }

    @Test func methodAndBodyAreChecked() throws {
        let server = try Self.server()
        try Self.button(server, #"{"id": "b"}"#)
        let url = "http://127.0.0.1:9/x"
        for method in ["HEAD", "OPTIONS", "TRACE", "CONNECT", "FETCH", ""] {
            let reply = try server.post("/api/v1/buttons/b/handlers", Self.hook(url, webhook: ", \"method\": \"\(method)\""))
            #expect(reply.status == 422, "\(method): \(reply.text)")
            #expect(Self.error(reply) == "webhook.method")
        }
        #expect(try server.post("/api/v1/buttons/b/handlers", Self.hook(url, webhook: #", "method": 1"#)).status == 400)
        let getWithBody = try server.post("/api/v1/buttons/b/handlers", Self.hook(url, webhook: #", "method": "GET", "body": {"a": 1}"#))
        #expect(getWithBody.status == 422, "\(getWithBody.text)")
        #expect(Self.error(getWithBody) == "webhook.body")
        for body in [#""text""#, "42", "[1, 2]", "true", #"{"a": {"b": ["{event}"]}}"#] {
            let reply = try server.post("/api/v1/buttons/b/handlers", Self.hook(url, webhook: ", \"method\": \"PUT\", \"body\": \(body)"))
            #expect(reply.status == 201, "any JSON is a body: \(body): \(reply.text)")
        }
        // A POST with a body cannot become a GET and keep it.
        let post = try server.post("/api/v1/buttons/b/handlers", Self.hook(url, webhook: #", "body": {"a": 1}"#))
        let hid = try #require(post.json["id"]?.string)
        let patched = try server.client.request("PATCH", "/api/v1/handlers/\(hid)", json: #"{"webhook": {"method": "GET"}}"#)
        #expect(patched.status == 422, "\(patched.text)")
        #expect(Self.error(patched) == "webhook.body")
        let both = try server.client.request("PATCH", "/api/v1/handlers/\(hid)", json: #"{"webhook": {"method": "GET", "body": null}}"#)
        #expect(both.status == 200, "\(both.text)")
        #expect(both.json["webhook"]?["method"] == "GET")
        #expect(both.json["webhook"]?["body"] == nil)
    }

    @Test func aTemplatedBodyIsByteIdenticalOnRetry() throws {
        let server = try Self.server()
        let sink = try Sink()
        try Self.button(server, #"{"id": "b", "label": "Bell", "maxTaps": 1}"#)
        let hid = try Self.handler(
            server, sink, "buttons/b",
            Self.hook(sink.url("/fail-first/r"), webhook: #", "body": {"at": "{t}", "id": "{id}", "label": "{label}", "event": "{event}"}"#))
        let tap = try Self.tap(server)
        let got = sink.wait { $0.count >= 2 }
        try #require(got.count == 2)
        #expect(got[0].body == got[1].body)
        #expect(got[0].json?["event"] == tap)
        #expect(got[0].json?["label"] == "Bell")
        #expect(got[0].headers["webhook-id"] == got[1].headers["webhook-id"])
        #expect(got.allSatisfy { $0.verifiedBy == [hid] })
        let rows = try eventually(seconds: 60, { try Self.list(server, "handler=\(hid)") }, until: { $0.first?["status"] == "ok" })
        let detail = try Self.detail(server, try #require(rows.first?["id"]?.string)).json
        #expect(detail["attempts"]?.array.map { $0["outcome"]?.string ?? "" } == ["http_status", "ok"])
        #expect(detail["attempts"]?.array.map { $0["statusCode"]?.int ?? 0 } == [500, 200])
        #expect(detail["body"] == got[0].json)
    }

    @Test func aSheetDeliveryNamesTheSheetAndFillsTheOption() throws {
        let server = try Self.server()
        let sink = try Sink()
        let sheet = try server.post(
            "/api/v1/sheets", #"{"id": "scene", "title": "Scenes", "options": [{"id": "movie", "label": "Movie"}, {"id": "off", "label": "Off"}]}"#)
        #expect(sheet.status == 201, "\(sheet.text)")
        let hid = try Self.handler(
            server, sink, "sheets/scene",
            Self.hook(sink.url("/scene"), on: #"["select"]"#, webhook: #", "body": {"scene": "{option}", "from": "{button}", "title": "{label}"}"#))
        let chose = try server.post("/api/v1/sheets/scene/choose", #"{"option": "movie"}"#)
        #expect(chose.status == 200)
        let request = try #require(sink.wait { $0.count == 1 }.first)
        #expect(request.body == Array(#"{"from":"scene","scene":"movie","title":"Scenes"}"#.utf8), "\(String(decoding: request.body, as: UTF8.self))")
        #expect(request.verifiedBy == [hid])
        let rows = try eventually(seconds: 60, { try Self.list(server, "handler=\(hid)") }, until: { $0.first?["status"] == "ok" })
        #expect(rows.first?["sheet"] == "scene")
        #expect(rows.first?["button"] == nil)
        #expect(rows.first?["type"] == "select")
        // A sheet takes its handlers' logs with it too.
        #expect(try server.client.request("DELETE", "/api/v1/sheets/scene").status == 204)
        #expect(try Self.detail(server, try #require(rows.first?["id"]?.string)).status == 404)
        #expect(try Self.list(server).isEmpty)
    }
}
