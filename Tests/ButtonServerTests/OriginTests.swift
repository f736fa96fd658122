import Foundation
import Testing
import CurlHTTP
import Platform

/// The browser is not a way in (SPEC §6): a Host the server does not answer to is 421 (DNS
/// rebinding), an Origin that is not the server's own is 403, whatever the content type, and
/// a request with neither (curl, the CLI) works as before.
@Suite("Host and Origin: no web page can drive the server")
struct OriginTests {
    static func create(_ server: TestServer, headers: [String: String], id: String) throws -> HTTPClient.Reply {
        try server.client.request("POST", "/api/v1/buttons", json: "{\"id\": \"\(id)\"}", headers: headers)
    }

    @Test(arguments: ["attacker.example", "attacker.example:8080", "127.0.0.1.attacker.example", "10.255.255.254", "[fe80::1]:80"])
    func aHostTheServerDoesNotAnswerToIs421(host: String) throws {
        let server = try TestServer()
        for path in ["/api/v1/buttons", "/healthz", "/"] {
            let reply = try server.client.request("GET", path, headers: ["Host": host])
            #expect(reply.status == 421, "\(path) with Host \(host)")
            #expect(reply.errorCode == "host_refused")
        }
        #expect(try Self.create(server, headers: ["Host": host], id: "door").status == 421)
        #expect(try server.client.get("/api/v1/buttons").json["buttons"]?.array.isEmpty == true)
    }

    @Test func loopbackNamesThisMachineAndAllowedHostsAreAnswered() throws {
        let server = try TestServer {
            $0.http.gate.allowedHosts = ["panel.example.org", "*.stage.example"]
            $0.publicURL = "https://buttons.example.com:8443/"
        }
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count)
        let machine = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let port = server.app.port
        let hosts = [
            "localhost", "localhost:\(port)", "127.0.0.1:\(port)", "127.1.2.3", "[::1]:\(port)", "app.localhost",
            machine, "\(machine):\(port)", "panel.example.org", "PANEL.example.org:80", "foh.stage.example",
            "buttons.example.com",
        ]
        for host in hosts {
            #expect(try server.client.request("GET", "/healthz", headers: ["Host": host]).status == 200, "\(host)")
        }
        #expect(try server.client.request("GET", "/healthz", headers: ["Host": "stage.example.evil"]).status == 421)
    }

    /// What a stranger's page sends with `fetch(…, {mode: "no-cors"})`: a "simple" request, no
    /// preflight, so only the Origin header tells it from the panel.
    @Test(arguments: ["application/x-www-form-urlencoded", "text/plain", "application/json", ""])
    func aForeignOriginIs403WhateverTheContentType(contentType: String) throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "door"}"#)
        var headers = ["Origin": "http://attacker.example"]
        if !contentType.isEmpty { headers["Content-Type"] = contentType }
        let press = try server.client.request("POST", "/api/v1/buttons/door/press", json: "{}", headers: headers)
        #expect(press.status == 403)
        #expect(press.errorCode == "origin_refused")
        #expect(try Self.create(server, headers: headers, id: "evil").status == 403)
        let hook = #"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/steal"}}"#
        #expect(try server.client.request("POST", "/api/v1/buttons/door/handlers", json: hook, headers: headers).status == 403)
        #expect(try server.client.request("GET", "/api/v1/buttons", headers: ["Origin": "null"]).status == 403)
        // Nothing happened, and curl (no Origin) goes on as before.
        #expect(try server.client.get("/api/v1/events?after=0").json["events"]?.array.isEmpty == true)
        #expect(try server.client.get("/api/v1/buttons/door/handlers").json["handlers"]?.array.isEmpty == true)
        #expect(try server.post("/api/v1/buttons/door/press").status == 200)
    }

    @Test func theServersOwnOriginAndAllowedOnesPass() throws {
        let server = try TestServer { $0.http.gate.allowedOrigins = ["https://dash.example.net"] }
        let port = server.app.port
        for origin in ["http://127.0.0.1:\(port)", "http://localhost:\(port)", "https://dash.example.net", "https://DASH.example.net/"] {
            let host = origin.contains("localhost") ? "localhost:\(port)" : "127.0.0.1:\(port)"
            let reply = try Self.create(server, headers: ["Origin": origin, "Host": host], id: "b\(abs(origin.hashValue) % 100_000)")
            #expect(reply.status == 201, "\(origin): \(reply.status) \(reply.errorCode ?? "")")
        }
        // The same host on another port, or https for an http server, is another origin.
        for origin in ["http://127.0.0.1:\(port + 1)", "https://127.0.0.1:\(port)"] {
            #expect(try Self.create(server, headers: ["Origin": origin, "Host": "127.0.0.1:\(port)"], id: "x").status == 403, "\(origin)")
        }
    }

    /// A page at an allowed origin can use the API from a browser: its preflight is answered
    /// before any token is asked for, and every answer (a press's, which comes later, too)
    /// names the origin. The server's own origin and requests without one get no CORS headers.
    @Test func anAllowedOriginsPageCanCallTheAPI() throws {
        let server = try TestServer {
            $0.http.gate.allowedOrigins = ["https://dash.example.net"]
            $0.adminToken = "admin-for-cors"
        }
        let admin = HTTPClient(port: server.app.port, token: "admin-for-cors")
        let browser = HTTPClient(port: server.app.port)  // a preflight carries no token
        #expect(try admin.request("POST", "/api/v1/buttons", json: #"{"id": "door"}"#).status == 201)
        let origin = "https://dash.example.net"
        let preflight = try browser.request(
            "OPTIONS", "/api/v1/buttons/door/press",
            headers: ["Origin": origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type"])
        #expect(preflight.status == 204)
        #expect(preflight.header("access-control-allow-origin") == origin)
        #expect(preflight.header("access-control-allow-methods")?.contains("POST") == true)
        #expect(preflight.header("access-control-allow-headers")?.lowercased().contains("authorization") == true)
        let press = try admin.request("POST", "/api/v1/buttons/door/press", json: "{}", headers: ["Origin": origin])
        #expect(press.status == 200)
        #expect(press.header("access-control-allow-origin") == origin)
        #expect(press.header("vary")?.contains("Origin") == true)
        let refused = try browser.request("POST", "/api/v1/buttons", json: #"{"id": "x"}"#, headers: ["Origin": origin])
        #expect(refused.status == 401)
        #expect(refused.header("access-control-allow-origin") == origin, "the page can read why")
        // Not for another origin (refused), nor for curl or the server's own page.
        let foreign = try browser.request(
            "OPTIONS", "/api/v1/buttons/door/press", headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "POST"])
        #expect(foreign.status == 403 && foreign.header("access-control-allow-origin") == nil)
        #expect(try admin.get("/api/v1/buttons").header("access-control-allow-origin") == nil)
        let own = try admin.request("GET", "/api/v1/buttons", headers: ["Origin": "http://127.0.0.1:\(server.app.port)"])
        #expect(own.status == 200 && own.header("access-control-allow-origin") == nil)
    }

    @Test func thePanelCannotBeFramedByDefault() throws {
        let server = try TestServer()
        let page = try server.client.get("/")
        #expect(page.header("content-security-policy")?.contains("frame-ancestors 'self'") == true)
        #expect(page.header("x-frame-options") == "SAMEORIGIN")
        let widened = try TestServer { $0.http.frameAncestors = "'self' http://homeassistant.local:8123" }
        let embedded = try widened.client.get("/")
        #expect(embedded.header("content-security-policy")?.contains("frame-ancestors 'self' http://homeassistant.local:8123") == true)
        #expect(embedded.header("x-frame-options") == nil)
    }
}
