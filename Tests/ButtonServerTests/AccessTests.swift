import Foundation
import Testing
import TestSupport
import CurlHTTP
import MicroHTTP
import Platform
@testable import ButtonServer

/// Access is declared where a route is declared (SPEC §6): the whole table in one place, and
/// a token limited to groups that reaches nothing of another group on any route that takes
/// an object, found by walking the routes themselves rather than a list kept by hand.
@Suite("Access: declared with the routes, one check for all")
struct AccessTests {
    /// Every route and what it declares: role (`open` for none), then the object the route
    /// acts on (`-`: a list or nothing of one group; `deployment`: every group at once). A
    /// route is registered only with its access (`Router.add` has no form without it), so a
    /// new route shows up here as a difference to review.
    static let table = """
        DELETE /api/v1/buttons/{id} admin button({id})
        DELETE /api/v1/handlers/{hid} admin handler({hid})
        DELETE /api/v1/sheets/{id} admin sheet({id})
        DELETE /api/v1/tokens/{name} admin deployment
        GET /api/v1/buttons read -
        GET /api/v1/buttons/{id} read button({id})
        GET /api/v1/buttons/{id}/handlers read button({id})
        GET /api/v1/config read -
        GET /api/v1/deliveries read -
        GET /api/v1/deliveries/{did} read delivery({did})
        GET /api/v1/events read -
        GET /api/v1/events/stream read -
        GET /api/v1/handlers/{hid} read handler({hid})
        GET /api/v1/icons read -
        GET /api/v1/mqtt admin deployment
        GET /api/v1/openapi.json read -
        GET /api/v1/session read -
        GET /api/v1/sheets read -
        GET /api/v1/sheets/{id} read sheet({id})
        GET /api/v1/sheets/{id}/handlers read sheet({id})
        GET /api/v1/tokens admin deployment
        GET /api/v1/vocabulary read -
        GET /healthz open -
        GET /metrics read deployment
        PATCH /api/v1/buttons/{id} admin button({id})
        PATCH /api/v1/handlers/{hid} admin handler({hid})
        PATCH /api/v1/sheets/{id} admin sheet({id})
        POST /api/v1/buttons admin -
        POST /api/v1/buttons/{id}/cancel press button({id})
        POST /api/v1/buttons/{id}/down press button({id})
        POST /api/v1/buttons/{id}/handlers admin button({id})
        POST /api/v1/buttons/{id}/move press button({id})
        POST /api/v1/buttons/{id}/press press button({id})
        POST /api/v1/buttons/{id}/reset admin button({id})
        POST /api/v1/buttons/{id}/up press button({id})
        POST /api/v1/deliveries/{did}/redeliver admin delivery({did})
        POST /api/v1/handlers/{hid}/rotate-secret admin handler({hid})
        POST /api/v1/handlers/{hid}/test admin handler({hid})
        POST /api/v1/input press -
        POST /api/v1/qr read -
        POST /api/v1/sheets admin -
        POST /api/v1/sheets/{id}/cancel press sheet({id})
        POST /api/v1/sheets/{id}/choose press sheet({id})
        POST /api/v1/sheets/{id}/handlers admin sheet({id})
        POST /api/v1/sheets/{id}/open press sheet({id})
        POST /api/v1/tokens admin deployment
        PUT /api/v1/buttons/{id}/state press button({id})
        PUT /api/v1/config admin deployment
        """

    @Test func everyRouteIsListedWithItsAccess() throws {
        let server = try TestServer()
        defer { server.stop() }
        let actual = server.app.routeTable.map { "\($0.method) \($0.pattern) \($0.access)" }.sorted()
        let expected = Self.table.split(separator: "\n").map { String($0).trimmed() }.sorted()
        #expect(actual == expected, "the routes and their access are:\n\(actual.joined(separator: "\n"))")
    }

    static let admin = "admin-secret-for-access"

    /// A lobby and a stage, each with a button, a sheet and a handler; the stage's handler has
    /// a delivery (to a port nobody listens on, so it waits for its retry).
    static func server() throws -> (TestServer, stageHandler: String, stageDelivery: String) {
        let server = try TestServer { $0.adminToken = admin }
        for (path, body) in [
            ("/api/v1/buttons", #"{"id": "lobby-door", "group": "lobby"}"#),
            ("/api/v1/buttons", #"{"id": "stage-go", "group": "stage", "maxTaps": 1}"#),
            ("/api/v1/sheets", #"{"id": "lobby-scene", "group": "lobby", "options": [{"id": "day"}]}"#),
            ("/api/v1/sheets", #"{"id": "stage-scene", "group": "stage", "options": [{"id": "a"}]}"#),
        ] {
            #expect(try server.post(path, body).status == 201)
        }
        let hook = #"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/hook"}}"#
        let handler = try server.post("/api/v1/buttons/stage-go/handlers", hook).json["id"]?.string ?? ""
        #expect(try server.post("/api/v1/buttons/stage-go/press").status == 200)
        let deliveries = try eventually({ try server.client.get("/api/v1/deliveries?handler=\(handler)").json["deliveries"]?.array ?? [] }) {
            !$0.isEmpty
        }
        return (server, handler, deliveries.first?["id"]?.string ?? "")
    }

    static func token(_ server: TestServer, _ body: String) throws -> HTTPClient {
        let reply = try server.post("/api/v1/tokens", body)
        #expect(reply.status == 201)
        return HTTPClient(port: server.app.port, token: reply.json["token"]?.string ?? "")
    }

    /// Walks the route table: every route whose declared object is a button, sheet, handler or
    /// delivery is called by an admin token limited to the lobby with the stage's object, and
    /// answers 404 as if it did not exist (and nothing is done: the stage's receiver gets no
    /// redelivery, its button no press). Routes of every group at once are 403 to it.
    @Test func aScopedTokenFindsNothingOfAnotherGroupOnAnyRoute() throws {
        let (server, handler, delivery) = try Self.server()
        defer { server.stop() }
        let lobbyAdmin = try Self.token(server, #"{"name": "lobby-admin", "role": "admin", "groups": ["lobby"]}"#)
        let eventsBefore = try server.client.get("/api/v1/events?after=0&limit=1000").json["events"]?.array.count ?? 0
        var objectRoutes = 0
        for route in server.app.routeTable {
            var path = route.pattern
            switch route.access.object {
            case .button(let name): path = path.replacing("{\(name)}", with: "stage-go")
            case .sheet(let name): path = path.replacing("{\(name)}", with: "stage-scene")
            case .handler(let name): path = path.replacing("{\(name)}", with: handler)
            case .delivery(let name): path = path.replacing("{\(name)}", with: delivery)
            case .deployment:
                let reply = try lobbyAdmin.request(route.method, path.replacing("{name}", with: "lobby-admin"), json: "{}")
                #expect(reply.status == 403, "\(route.method) \(route.pattern) answered \(reply.status)")
                continue
            case .none:
                continue
            }
            objectRoutes += 1
            let body = route.method == "PUT" ? #"{"face": 1}"# : "{}"
            let reply = try lobbyAdmin.request(route.method, path, json: body)
            #expect(reply.status == 404, "\(route.method) \(path) answered \(reply.status)")
            #expect(reply.errorCode == "not_found", "\(route.method) \(path)")
        }
        #expect(objectRoutes >= 25)
        // Nothing happened: no event, the delivery not redelivered, the handler still there.
        let eventsAfter = try server.client.get("/api/v1/events?after=0&limit=1000").json["events"]?.array.count ?? 0
        #expect(eventsAfter == eventsBefore)
        #expect(try server.client.get("/api/v1/handlers/\(handler)").status == 200)
        #expect(try server.client.get("/api/v1/deliveries/\(delivery)").json["attempts"]?.array.count ?? 0 <= 1)
        // The same token reaches its own group's objects.
        #expect(try lobbyAdmin.get("/api/v1/buttons/lobby-door").status == 200)
        #expect(try lobbyAdmin.request("POST", "/api/v1/buttons/lobby-door/press", json: "{}").status == 200)
    }

    /// `/metrics` counts every group: a token limited to groups may not read it; one of every
    /// group may.
    @Test func metricsAreRefusedToAScopedToken() throws {
        let (server, _, _) = try Self.server()
        defer { server.stop() }
        let scoped = try Self.token(server, #"{"name": "lobby-read", "role": "read", "groups": ["lobby"]}"#)
        let reply = try scoped.get("/metrics")
        #expect(reply.status == 403)
        #expect(reply.errorCode == "forbidden")
        let everyGroup = try Self.token(server, #"{"name": "all-read", "role": "read"}"#)
        #expect(try everyGroup.get("/metrics").status == 200)
    }

    /// A named token's stream ends at the moment the token expires, as it does when it is
    /// revoked: the events after it never reach it.
    @Test func anExpiredTokensStreamEnds() throws {
        let (server, _, _) = try Self.server()
        defer { server.stop() }
        let expiresAt = Clock.system.now() + 3000
        let reader = try Self.token(server, #"{"name": "brief", "role": "read", "expiresAt": \#(expiresAt)}"#)
        let stream = try reader.stream("/api/v1/events/stream")
        #expect(stream.status == 200)
        #expect(try server.post("/api/v1/buttons/lobby-door/press").status == 200)
        #expect(try stream.nextEvent().data.contains("lobby-door"))
        while Clock.system.now() < expiresAt + 300 { usleep(50_000) }
        let lastBefore = try server.client.get("/api/v1/events?limit=1").json["events"]?.array.last?["seq"]?.int ?? 0
        #expect(try server.post("/api/v1/buttons/lobby-door/press").status == 200)
        var ended = false
        var leaked: [Int64] = []
        for _ in 0..<20 where !ended {
            do {
                let data = try stream.nextEvent().data
                leaked.append((try? JSONParser.parse(Array(data.utf8)))?["seq"]?.int ?? 0)
            } catch {
                ended = true
            }
        }
        #expect(ended)
        // Nothing made after the expiry reached it (at most the first press's own events).
        #expect(leaked.allSatisfy { $0 <= lastBefore }, "\(leaked) after \(lastBefore)")
        #expect(try reader.get("/api/v1/buttons").status == 401)
    }

    /// A handler imported by `PUT /api/v1/config` is judged by the code its own route uses:
    /// a webhook back to buttond is refused in every spelling, naming the item's path.
    @Test(arguments: ["127.0.0.1", "127.1", "2130706433", "[::ffff:127.0.0.1]"])
    func anImportedWebhookToButtondItselfIsRefused(host: String) throws {
        let server = try TestServer()
        defer { server.stop() }
        let url = "http://\(host):\(server.app.port)/api/v1/buttons/a/press"
        let hook = #"{"on": ["tap"], "webhook": {"url": "\#(url)"}}"#
        #expect(try server.post("/api/v1/buttons", #"{"id": "a"}"#).status == 201)
        let byRoute = try server.post("/api/v1/buttons/a/handlers", hook)
        let config = #"{"buttons": [{"id": "a"}], "handlers": [{"button": "a", "on": ["tap"], "webhook": {"url": "\#(url)"}}]}"#
        let byImport = try server.client.request("PUT", "/api/v1/config", json: config)
        #expect(byRoute.status == 422)
        #expect(byImport.status == byRoute.status, "\(String(decoding: byImport.body, as: UTF8.self))")
        #expect(byImport.json["error"]?["field"]?.string == "handlers[0].webhook.url")
        #expect(try server.client.get("/api/v1/buttons/a/handlers").json["handlers"]?.array.isEmpty == true)
    }
}
