import Foundation
import Testing
import CurlHTTP
import MicroHTTP
@testable import ButtonServer

/// Configuration as code (SPEC §3): every import answers its plan, a dry run changes nothing,
/// an import is one transaction, and handlers keep their ids and secrets.
@Suite("Config as code: plan, dry run, one transaction")
struct ConfigPlanTests {
    /// Buttons a and b, sheet s, a webhook handler on a (to a port nobody listens on).
    static func server() throws -> (TestServer, handler: String) {
        let server = try TestServer()
        #expect(try server.createButton(#"{"id": "a"}"#).status == 201)
        #expect(try server.createButton(#"{"id": "b"}"#).status == 201)
        #expect(try server.post("/api/v1/sheets", #"{"id": "s", "options": [{"id": "x"}]}"#).status == 201)
        let hook = try server.post("/api/v1/buttons/a/handlers", #"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/x"}}"#)
        return (server, hook.json["id"]?.string ?? "")
    }

    static func put(_ server: TestServer, _ document: String, dryRun: Bool = false) throws -> HTTPClient.Reply {
        try server.client.request("PUT", "/api/v1/config" + (dryRun ? "?dryRun=true" : ""), json: document)
    }

    static func ids(_ reply: HTTPClient.Reply, _ kind: String, _ what: String) -> [String] {
        reply.json["plan"]?[kind]?[what]?.array.compactMap(\.string) ?? []
    }

    /// a changed, c new, b and s gone, the handler (given without its id) matched as it is.
    static let document = #"""
        {"buttons": [{"id": "a", "longPressMs": 800}, {"id": "c"}], "sheets": [],
         "handlers": [{"button": "a", "on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/x"}}]}
        """#

    @Test func aDryRunAnswersThePlanAndChangesNothing() throws {
        let (server, handler) = try Self.server()
        defer { server.stop() }
        let before = try server.client.get("/api/v1/config").body
        let reply = try Self.put(server, Self.document, dryRun: true)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["applied"] == false)
        #expect(Self.ids(reply, "buttons", "create") == ["c"])
        #expect(Self.ids(reply, "buttons", "change") == ["a"])
        #expect(Self.ids(reply, "buttons", "delete") == ["b"])
        #expect(reply.json["plan"]?["buttons"]?["unchanged"] == 0)
        #expect(reply.json["plan"]?["buttons"]?["details"]?["a"]?["longPressMs"] == ["from": 500, "to": 800])
        #expect(Self.ids(reply, "sheets", "delete") == ["s"])
        #expect(Self.ids(reply, "handlers", "create").isEmpty && Self.ids(reply, "handlers", "delete").isEmpty)
        #expect(reply.json["plan"]?["handlers"]?["unchanged"] == 1)
        #expect(reply.json["secrets"] == [:])
        #expect(try server.client.get("/api/v1/config").body == before)
        #expect(try server.client.get("/api/v1/handlers/\(handler)").status == 200)
    }

    @Test func anImportAnswersThePlanItCarriedOut() throws {
        let (server, handler) = try Self.server()
        defer { server.stop() }
        let reply = try Self.put(server, Self.document)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["applied"] == true)
        #expect(Self.ids(reply, "buttons", "create") == ["c"] && Self.ids(reply, "buttons", "change") == ["a"])
        #expect(Self.ids(reply, "buttons", "delete") == ["b"] && Self.ids(reply, "sheets", "delete") == ["s"])
        #expect(try server.client.get("/api/v1/buttons/a").json["longPressMs"] == 800)
        #expect(try server.client.get("/api/v1/buttons/b").status == 404)
        #expect(try server.client.get("/api/v1/sheets/s").status == 404)
        // The handler without an id was matched: the same id, not a second one.
        let handlers = try server.client.get("/api/v1/buttons/a/handlers").json["handlers"]?.array ?? []
        #expect(handlers.compactMap { $0["id"]?.string } == [handler])
        // The same document again: nothing to do.
        let again = try Self.put(server, Self.document)
        #expect(again.json["plan"]?["buttons"]?["unchanged"] == 2)
        #expect(["create", "change", "delete"].allSatisfy { Self.ids(again, "buttons", $0).isEmpty })
    }

    /// Any invalid item refuses the whole document, naming the item by its path; nothing changes.
    @Test(arguments: [
        (#"{"buttons": [{"id": "a"}, {"id": "c"}], "handlers": [{"button": "a", "on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/x"}}, {"button": "c", "on": ["tap"], "webhook": {"url": "ftp://x"}}]}"#, "handlers[1].webhook.url"),
        (#"[{"id": "a"}]"#, "$"),
        (#"{"buttons": [], "buttonz": []}"#, "buttonz"),
        (#"{"buttons": [{"id": "a"}, {"id": "c"}, {"id": "a"}]}"#, "buttons[2].id"),
        (#"{"buttons": [{"id": "a"}], "sheets": [{"id": "t", "options": [{"id": "x"}]}, {"id": "t", "options": [{"id": "y"}]}]}"#, "sheets[1].id"),
        (#"{"buttons": [{"id": "a"}], "handlers": [{"id": "hdl_one", "button": "a", "on": ["tap"], "script": {"name": "x"}}]}"#, "handlers[0].script"),
        (#"{"buttons": [{"id": "a"}], "handlers": [{"button": "nope", "on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/x"}}]}"#, "handlers[0].button"),
        (#"{"buttons": [{"id": "a"}], "handlers": [{"id": "hdl_one", "button": "a", "on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/x"}}, {"id": "hdl_one", "button": "a", "on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/y"}}]}"#, "handlers[1].id"),
    ])
    func anInvalidItemChangesNothing(document: String, path: String) throws {
        let (server, _) = try Self.server()
        defer { server.stop() }
        let before = try server.client.get("/api/v1/config").body
        let reply = try Self.put(server, document)
        #expect(reply.status == 422, "\(reply.text)")
        #expect(reply.json["error"]?["field"]?.string == path, "\(reply.text)")
        #expect(try server.client.get("/api/v1/config").body == before)
    }

    /// Export, import the export: every handler keeps its id and its secret, and a delivery
    /// after it verifies with the secret given when the handler was made.
    @Test func idsAndSecretsSurviveARoundTrip() throws {
        let sink = try Sink()
        defer { sink.stop() }
        let server = try TestServer()
        defer { server.stop() }
        #expect(try server.createButton(#"{"id": "a", "maxTaps": 1}"#).status == 201)
        let made = try server.post("/api/v1/buttons/a/handlers", #"{"on": ["tap"], "webhook": {"url": "\#(sink.url("/kept"))"}}"#)
        let (id, secret) = (made.json["id"]?.string ?? "", made.json["secret"]?.string ?? "")
        try sink.trust(id, secret: secret)
        let exported = try server.client.get("/api/v1/config")
        let reply = try server.client.request("PUT", "/api/v1/config", body: exported.body)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["plan"]?["handlers"]?["unchanged"] == 1)
        #expect(reply.json["secrets"] == [:])
        #expect(try server.post("/api/v1/buttons/a/press").status == 200)
        let got = sink.wait { !$0.filter { $0.path == "/kept" }.isEmpty }.filter { $0.path == "/kept" }
        #expect(got.first?.verifiedBy == [id])
    }
}
