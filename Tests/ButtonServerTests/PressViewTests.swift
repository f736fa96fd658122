import ButtonServer
import Foundation
import MicroHTTP
import Testing
import TestSupport
import CurlHTTP

/// The delivery log suite, continued: what the press token sees of handlers and deliveries
/// (SPEC §6): where a handler points and how it is doing, never what it sends or what came back.
extension DeliveryLogRouteTests {
    // MARK: 9. The press token's view

    /// Each of these may be a credential; every one is in a place the press token can read.
    static let secrets = [
        "tg-sekret",  // a Telegram-style /botTOKEN/ path segment
        "path-sekret",  // a Slack-style /services/T/B/SECRET path segment
        "flag-sekret",  // a query key with no value
        "query-sekret",  // a query value
        "hdr-sekret",  // a header value (and, echoed back, in the attempt's output)
        "body-sekret",  // a body template value (and, rendered, in the delivery's body)
        "arg-sekret",  // a script argument
    ]

    static func pressServer() throws -> (TestServer, HTTPClient) {
        let dir = try ScriptTests.scriptsDir(["ok.sh": "#!/bin/sh\nexit 0\n"])
        let server = try Self.server {
            $0.adminToken = "admin-token-1"
            $0.pressToken = "press-token-1"
            $0.scriptsDir = dir
        }
        return (server, HTTPClient(port: server.app.port, token: "press-token-1"))
    }

    @Test func thePressTokenSeesWhereAHandlerPointsAndNothingItSends() throws {
        let (server, press) = try Self.pressServer()
        let sink = try Sink()
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let path = "/echo/bot123:tg-sekret/services/T0/B0/path-sekret?flag-sekret&key=query-sekret"
        let hid = try Self.handler(
            server, sink, "buttons/b",
            Self.hook(
                sink.url(path),
                webhook: #", "headers": {"Authorization": "Bearer hdr-sekret"}, "body": {"text": "body-sekret {button}"}"#))
        let script = try server.post("/api/v1/buttons/b/handlers", #"{"on": ["long-press"], "script": {"name": "ok.sh", "args": ["arg-sekret", "{button}"]}}"#)
        #expect(script.status == 201, "\(script.text)")
        let sid = try #require(script.json["id"]?.string)
        try Self.tap(server)
        let rows = try eventually(seconds: 60, { try Self.list(server, "handler=\(hid)") }, until: { $0.first?["status"] == "ok" })
        let did = try #require(rows.first?["id"]?.string)
        let echoed = try #require(try Self.detail(server, did).json["attempts"]?.array.first?["output"]?.string)
        #expect(echoed.contains("Bearer hdr-sekret"), "the receiver echoes the Authorization header: \(echoed)")

        let paths = [
            "/api/v1/handlers/\(hid)", "/api/v1/handlers/\(sid)", "/api/v1/buttons/b/handlers", "/api/v1/config",
            "/api/v1/deliveries", "/api/v1/deliveries?handler=\(hid)", "/api/v1/deliveries/\(did)", "/api/v1/buttons/b",
        ]
        for path in paths {
            let seen = try press.get(path)
            #expect(seen.status == 200, "\(path): \(seen.text)")
            for secret in Self.secrets { #expect(!seen.text.contains(secret), "\(path) shows \(secret): \(seen.text)") }
            let full = try server.client.get(path)
            #expect(full.status == 200, "\(path): \(full.text)")
        }

        // What it does see: id, events, enabled, health, kind, and scheme, host and port.
        let one = try press.get("/api/v1/handlers/\(hid)").json
        #expect(one["id"]?.string == hid)
        #expect(one["on"] == ["tap"])
        #expect(one["enabled"] == true)
        #expect(one["health"]?["state"] == "ok")
        #expect(one["webhook"]?["url"]?.string == "http://127.0.0.1:\(sink.port)/***")
        #expect(one["webhook"]?["headers"] == .object(["Authorization": "***"]))
        #expect(one["webhook"]?["body"] == "***")
        #expect(try press.get("/api/v1/handlers/\(sid)").json["script"]?["args"] == ["***", "***"])
        let delivery = try press.get("/api/v1/deliveries/\(did)").json
        #expect(delivery["target"]?.string == "POST http://127.0.0.1:\(sink.port)/***")
        #expect(delivery["body"] == "***")
        #expect(delivery["attempts"]?.array.first?["output"] == "***")
        #expect(delivery["attempts"]?.array.first?["outcome"] == "ok")
        #expect(try press.get("/api/v1/deliveries").json["deliveries"]?.array.first?["target"] == delivery["target"])

        // The admin sees every one of them, on the same routes.
        var seenByAdmin = ""
        for path in paths { seenByAdmin += try server.client.get(path).text }
        for secret in Self.secrets { #expect(seenByAdmin.contains(secret), "the admin is shown \(secret)") }
        let full = try server.client.get("/api/v1/handlers/\(hid)").json
        #expect(full["webhook"]?["url"]?.string == sink.url(path))
        #expect(full["webhook"]?["headers"] == .object(["Authorization": "Bearer hdr-sekret"]))
        #expect(full["webhook"]?["body"] == .object(["text": "body-sekret {button}"]))
        let log = try server.client.get("/api/v1/deliveries/\(did)").json
        #expect(log["target"]?.string == "POST " + sink.url(path))
        #expect(log["body"] == .object(["text": "body-sekret b"]))
    }

    /// Scheme, host and port survive whatever follows them; nothing after them does.
    @Test func thePressTokenSeesOnlyTheOriginOfEachURL() throws {
        let (server, press) = try Self.pressServer()
        try Self.button(server, #"{"id": "b"}"#)
        for (url, shown) in [
            ("http://10.0.0.5:8123/api/hook?key=abc123&mode=x", "http://10.0.0.5:8123/***"),
            ("https://hooks.example.com/services/T0/B0/abc123", "https://hooks.example.com/***"),
            ("http://10.0.0.5?abc123", "http://10.0.0.5/***"),
            ("http://10.0.0.5/#abc123", "http://10.0.0.5/***"),
            ("http://[fd00::5]:8080/abc123", "http://[fd00::5]:8080/***"),
            ("http://10.0.0.5:8080/", "http://10.0.0.5:8080/"),
            ("http://10.0.0.5", "http://10.0.0.5/"),
        ] {
            let created = try server.post("/api/v1/buttons/b/handlers", Self.hook(url))
            #expect(created.status == 201, "\(created.text)")
            let hid = try #require(created.json["id"]?.string)
            #expect(try press.get("/api/v1/handlers/\(hid)").json["webhook"]?["url"]?.string == shown, "\(url)")
            #expect(try server.client.get("/api/v1/handlers/\(hid)").json["webhook"]?["url"]?.string == url)
        }
        #expect(!(try press.get("/api/v1/config").text.contains("abc123")))
    }
}
