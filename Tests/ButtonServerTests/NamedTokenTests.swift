import Foundation
import Testing
import TestSupport
import CurlHTTP
import MicroHTTP
import Platform

/// Named, scoped tokens (SPEC §6): a kiosk in the lobby presses the lobby's buttons and
/// nothing else; every other button or sheet is 404 to it, as if it did not exist.
@Suite("Named tokens: roles, groups, revocation, expiry")
struct NamedTokenTests {
    static let admin = "admin-secret-for-tokens"

    static func server() throws -> TestServer {
        let server = try TestServer { $0.adminToken = admin }
        for body in [
            #"{"id": "lobby-door", "group": "lobby"}"#, #"{"id": "lobby-lights", "group": "lobby", "kind": "toggle"}"#,
            #"{"id": "stage-go", "group": "stage"}"#, #"{"id": "loose"}"#,
        ] {
            #expect(try server.createButton(body).status == 201)
        }
        let sheet = #"{"id": "lobby-scene", "group": "lobby", "options": [{"id": "day"}, {"id": "night"}]}"#
        #expect(try server.post("/api/v1/sheets", sheet).status == 201)
        #expect(try server.post("/api/v1/sheets", #"{"id": "stage-scene", "group": "stage", "options": [{"id": "a"}]}"#).status == 201)
        return server
    }

    static func token(_ server: TestServer, _ body: String) throws -> String {
        let reply = try server.post("/api/v1/tokens", body)
        #expect(reply.status == 201, "\(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        return reply.json["token"]?.string ?? ""
    }

    static func client(_ server: TestServer, _ token: String) -> HTTPClient {
        HTTPClient(port: server.app.port, token: token)
    }

    static func ids(_ reply: HTTPClient.Reply, _ key: String) -> [String] {
        reply.json[key]?.array.compactMap { $0["id"]?.string } ?? []
    }

    @Test func aLobbyPressTokenSeesAndPressesOnlyTheLobby() throws {
        let server = try Self.server()
        let token = try Self.token(server, #"{"name": "lobby-kiosk", "role": "press", "groups": ["lobby"]}"#)
        #expect(token.hasPrefix("bdt_"))
        let kiosk = Self.client(server, token)
        let press = try kiosk.request("POST", "/api/v1/buttons/lobby-door/press", json: "{}")
        #expect(press.status == 200)
        #expect(press.json["events"]?.array.allSatisfy { $0["by"]?.string == "lobby-kiosk" } == true)
        for path in ["/api/v1/buttons/stage-go", "/api/v1/buttons/loose", "/api/v1/sheets/stage-scene",
                     "/api/v1/events?button=stage-go", "/api/v1/buttons/stage-go/handlers"] {
            let reply = try kiosk.get(path)
            #expect(reply.status == 404, "\(path)")
            #expect(reply.errorCode == "not_found")
        }
        #expect(try kiosk.request("POST", "/api/v1/buttons/stage-go/press", json: "{}").status == 404)
        let batch = #"[{"button": "lobby-door", "type": "down"}, {"button": "stage-go", "type": "down"}]"#
        let refused = try kiosk.request("POST", "/api/v1/input", json: batch)
        #expect(refused.status == 404)
        #expect(refused.json["error"]?["index"] == .int(1))
        #expect(Self.ids(try kiosk.get("/api/v1/buttons"), "buttons") == ["lobby-door", "lobby-lights"])
        #expect(Self.ids(try kiosk.get("/api/v1/sheets"), "sheets") == ["lobby-scene"])
        #expect(try kiosk.request("POST", "/api/v1/sheets/lobby-scene/choose", json: #"{"option": "night"}"#).status == 200)
        // Another group's presses (by the admin) are not in its history.
        #expect(try server.post("/api/v1/buttons/stage-go/press").status == 200)
        let history = try kiosk.get("/api/v1/events?after=0").json["events"]?.array ?? []
        #expect(!history.isEmpty)
        #expect(history.allSatisfy { ["lobby-door", "lobby-scene"].contains($0["button"]?.string ?? $0["sheet"]?.string ?? "") })
        #expect(try server.client.get("/api/v1/events?after=0").json["events"]?.array.count ?? 0 > history.count)
        // It may not change the registry, nor make tokens.
        #expect(try kiosk.request("PATCH", "/api/v1/buttons/lobby-door", json: #"{"label": "x"}"#).status == 403)
        #expect(try kiosk.request("POST", "/api/v1/tokens", json: #"{"name": "x", "role": "admin"}"#).status == 403)
        // Metrics count by role, never by token name.
        let metrics = String(decoding: try server.client.get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("buttond_http_requests_by_role_total{role=\"press\"}"))
        #expect(!metrics.contains("lobby-kiosk"))
    }

    @Test func itsStreamCarriesNoOtherGroupsEventsAndEndsWhenRevoked() throws {
        let server = try Self.server()
        let token = try Self.token(server, #"{"name": "lobby-wall", "role": "read", "groups": ["lobby"]}"#)
        let stream = try Self.client(server, token).stream("/api/v1/events/stream")
        #expect(stream.status == 200)
        for _ in 0..<3 { #expect(try server.post("/api/v1/buttons/stage-go/press").status == 200) }
        #expect(try server.post("/api/v1/buttons/lobby-door/press").status == 200)
        let first = try stream.nextEvent()
        #expect(first.data.contains("\"lobby-door\""), "\(first.data)")
        // read: no input.
        #expect(try Self.client(server, token).request("POST", "/api/v1/buttons/lobby-door/press", json: "{}").status == 403)
        #expect(try server.client.request("DELETE", "/api/v1/tokens/lobby-wall").status == 204)
        #expect(try Self.client(server, token).get("/api/v1/buttons").status == 401)
        var ended = false
        for _ in 0..<20 where !ended {
            do { _ = try stream.nextEvent() } catch { ended = true }
        }
        #expect(ended)
    }

    /// A timer's events (the single tap a press ends in, a long press) are caused by the input
    /// before them and name its sender too.
    @Test func eventsATimerFiresLaterNameTheSenderToo() throws {
        let server = try Self.server()
        let kiosk = Self.client(server, try Self.token(server, #"{"name": "lobby-kiosk", "role": "press", "groups": ["lobby"]}"#))
        #expect(try server.client.request("PATCH", "/api/v1/buttons/lobby-door", json: #"{"maxTaps": 2, "multiTapMs": 100}"#).status == 200)
        #expect(try kiosk.request("POST", "/api/v1/buttons/lobby-door/press", json: "{}").status == 200)
        let events = try eventually({ try server.client.get("/api/v1/events?button=lobby-door").json["events"]?.array ?? [] }) {
            $0.contains { $0["type"] == "single-tap" }
        }
        let single = try #require(events.first { $0["type"] == "single-tap" })
        #expect(single["by"] == "lobby-kiosk")
        // An input without a named token after it: the next timer's events name nobody.
        #expect(try server.post("/api/v1/buttons/lobby-door/press").status == 200)
        let later = try eventually({ try server.client.get("/api/v1/events?button=lobby-door").json["events"]?.array ?? [] }) {
            $0.filter { $0["type"] == "single-tap" }.count == 2
        }
        #expect(later.last { $0["type"] == "single-tap" }?["by"] == nil)
    }

    /// Registry messages on a lobby token's stream: its group's creates, changes and deletes,
    /// a button moved out as a delete and moved back as a put, and nothing of another group.
    @Test func itsStreamFollowsItsGroupsRegistryOnly() throws {
        let server = try Self.server()
        let token = try Self.token(server, #"{"name": "lobby-wall", "role": "read", "groups": ["lobby"]}"#)
        let stream = try Self.client(server, token).stream("/api/v1/events/stream")
        func next() throws -> (op: String, id: String, group: String?) {
            let message = try PanelSupportTests.nextRegistryEvent(stream)
            let body = message["button"] ?? message["sheet"]
            return (message["op"]?.string ?? "", message["id"]?.string ?? "", body?["group"]?.string)
        }
        #expect(try server.createButton(#"{"id": "stage-2", "group": "stage"}"#).status == 201)
        #expect(try server.createButton(#"{"id": "lobby-2", "group": "lobby"}"#).status == 201)
        #expect(try next() == ("put", "lobby-2", "lobby"))
        #expect(try server.client.request("PATCH", "/api/v1/buttons/lobby-2", json: #"{"group": "stage"}"#).status == 200)
        let out = try next()
        #expect(out == ("delete", "lobby-2", nil), "moved out of the lobby: gone, and never shown in its new group")
        #expect(try server.client.request("PATCH", "/api/v1/buttons/lobby-2", json: #"{"label": "x"}"#).status == 200)
        #expect(try server.client.request("DELETE", "/api/v1/buttons/stage-2").status == 204)
        #expect(try server.client.request("PATCH", "/api/v1/buttons/lobby-2", json: #"{"group": "lobby"}"#).status == 200)
        #expect(try next() == ("put", "lobby-2", "lobby"))
        #expect(try server.client.request("DELETE", "/api/v1/buttons/lobby-2").status == 204)
        #expect(try next() == ("delete", "lobby-2", nil))
        #expect(try server.client.request("DELETE", "/api/v1/sheets/stage-scene").status == 204)
        #expect(try server.client.request("DELETE", "/api/v1/sheets/lobby-scene").status == 204)
        #expect(try next() == ("delete", "lobby-scene", nil))
    }

    @Test func tokensAreListedWithoutTheirValueExpireAndAreStoredAsHashes() throws {
        let server = try Self.server()
        let soon = Clock.system.now() + 1500
        let token = try Self.token(server, "{\"name\": \"brief\", \"role\": \"press\", \"expiresAt\": \(soon)}")
        let other = try Self.token(server, #"{"name": "foh", "role": "admin", "groups": ["stage"]}"#)
        let list = try server.client.get("/api/v1/tokens")
        #expect(list.status == 200)
        let names = list.json["tokens"]?.array.compactMap { $0["name"]?.string }
        #expect(names == ["brief", "foh"])
        #expect(!String(decoding: list.body, as: UTF8.self).contains("bdt_"))
        #expect(try Self.client(server, token).get("/api/v1/buttons").status == 200)
        #expect(try server.client.get("/api/v1/tokens").json["tokens"]?.array.first?["lastUsedAt"]?.int != nil)
        Thread.sleep(forTimeInterval: 1.6)
        let expired = try Self.client(server, token).get("/api/v1/buttons")
        #expect(expired.status == 401)
        #expect(String(decoding: expired.body, as: UTF8.self).contains("expired"))
        let taken = try server.post("/api/v1/tokens", #"{"name": "foh", "role": "read"}"#)
        #expect(taken.status == 409 && taken.errorCode == "already_exists", "the code a taken button id gets too")
        #expect(try server.post("/api/v1/tokens", #"{"name": "bad", "role": "god"}"#).status == 422)
        #expect(!String(decoding: try server.client.get("/api/v1/config").body, as: UTF8.self).contains("brief"))
        server.stop()
        let file = try Data(contentsOf: URL(fileURLWithPath: server.dataDir + "/buttond.sqlite3"))
        for value in [token, other] { #expect(file.range(of: Data(value.utf8)) == nil) }
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: server.dataDir + "/buttond.sqlite3-wal"))) ?? Data()
        for value in [token, other] { #expect(wal.range(of: Data(value.utf8)) == nil) }
    }

    /// `by` reaches a webhook: in the event body and as the `{by}` placeholder.
    @Test func whoPressedReachesAWebhook() throws {
        let server = try Self.server()
        let sink = try Sink()
        defer { sink.stop() }
        let hook = "{\"on\": [\"tap\"], \"webhook\": {\"url\": \"\(sink.url("/who"))\", \"body\": {\"who\": \"{by}\", \"event\": \"{event}\"}}}"
        #expect(try server.post("/api/v1/buttons/lobby-door/handlers", hook).status == 201)
        let kiosk = Self.client(server, try Self.token(server, #"{"name": "lobby-kiosk", "role": "press", "groups": ["lobby"]}"#))
        #expect(try kiosk.request("POST", "/api/v1/buttons/lobby-door/press", json: "{}").status == 200)
        let received = sink.wait(seconds: 10) { list in list.contains { $0.path == "/who" } }
        let bytes = received.first { $0.path == "/who" }?.body ?? []
        let body: JSONValue = (try? JSONParser.parse(bytes)) ?? .null
        #expect(body["who"] == "lobby-kiosk")
        #expect(body["event"]?["by"] == "lobby-kiosk")
    }

    @Test func movingAButtonToAnotherGroupChangesWhatATokenSeesAtOnce() throws {
        let server = try Self.server()
        let kiosk = Self.client(server, try Self.token(server, #"{"name": "k", "role": "press", "groups": ["lobby"]}"#))
        #expect(try kiosk.get("/api/v1/buttons/stage-go").status == 404)
        #expect(try server.client.request("PATCH", "/api/v1/buttons/stage-go", json: #"{"group": "lobby"}"#).status == 200)
        #expect(try kiosk.get("/api/v1/buttons/stage-go").status == 200)
    }
}
