import Foundation
import MicroHTTP
import Testing

@Suite("Button and sheet registry over HTTP")
struct RegistryRouteTests {
    @Test func createReadUpdateDelete() throws {
        let server = try TestServer()
        let created = try server.createButton(#"{"id": "door", "label": "Front door", "longPressMs": 800}"#)
        #expect(created.status == 201)
        #expect(created.header("location") == "/api/v1/buttons/door")
        #expect(created.json["label"] == "Front door")
        #expect(created.json["kind"] == "push")
        #expect(created.json["longPressMs"] == 800)
        #expect(created.json["multiTapMs"] == 300)
        #expect(created.json["state"] == ["held": false, "face": 0, "tapCount": 0, "armed": false])

        let read = try server.client.get("/api/v1/buttons/door")
        #expect(read.status == 200)
        #expect(read.json["id"] == "door")

        let patched = try server.client.request("PATCH", "/api/v1/buttons/door", json: #"{"label": "Door", "maxTaps": 3}"#)
        #expect(patched.status == 200)
        #expect(patched.json["label"] == "Door")
        #expect(patched.json["maxTaps"] == 3)
        #expect(patched.json["longPressMs"] == 800)

        let list = try server.client.get("/api/v1/buttons")
        #expect(list.json["buttons"]?.array.count == 1)

        #expect(try server.client.request("DELETE", "/api/v1/buttons/door").status == 204)
        let gone = try server.client.get("/api/v1/buttons/door")
        #expect(gone.status == 404)
        #expect(gone.errorCode == "not_found")
        #expect(try server.post("/api/v1/buttons/door/down").status == 404)
    }

    @Test func labelDefaultsToIDAndDuplicatesConflict() throws {
        let server = try TestServer()
        #expect(try server.createButton(#"{"id": "a1"}"#).json["label"] == "a1")
        let again = try server.createButton(#"{"id": "a1"}"#)
        #expect(again.status == 409)
        #expect(again.errorCode == "already_exists")
    }

    static let invalid: [(String, Int, String)] = [
        (#"{"id": "x", "longPressMs": 49}"#, 422, "longPressMs"),
        (#"{"id": "x", "longPressMs": 60001}"#, 422, "longPressMs"),
        (#"{"id": "x", "multiTapMs": 5001}"#, 422, "multiTapMs"),
        (#"{"id": "x", "maxTaps": 0}"#, 422, "maxTaps"),
        (#"{"id": "x", "maxTaps": 6}"#, 422, "maxTaps"),
        (#"{"id": "x", "repeatMs": 10}"#, 422, "repeatMs"),
        (#"{"id": "x", "maxHoldMs": 999}"#, 422, "maxHoldMs"),
        (#"{"id": "x", "kind": "switch"}"#, 422, "kind"),
        (#"{"id": "x", "longpressMs": 500}"#, 422, "longpressMs"),
        (#"{"id": "Door"}"#, 422, "id"),
        (#"{"id": "-door"}"#, 422, "id"),
        (#"{"label": "no id"}"#, 422, "id"),
        (#"{"id": "x", "label": "\#(String(repeating: "l", count: 65))"}"#, 422, "label"),
        (#"{"id": "x", "kind": "toggle", "faces": [{"label": "a"}]}"#, 422, "faces"),
        (#"{"id": "x", "kind": "toggle", "faces": [{"label": "a"}, {"label": "b", "colour": "red"}]}"#, 422, "faces[1].colour"),
        (#"{"id": "x", "kind": "toggle", "flip": {"transition": "spin"}}"#, 422, "flip.transition"),
        (#"{"id": "x", "kind": "toggle", "flip": {"durationMs": 5001}}"#, 422, "flip.durationMs"),
        (#"{"id": "x", "longPressMs": "500"}"#, 400, "longPressMs"),
        (#"{"id": 7}"#, 400, "id"),
    ]

    @Test(arguments: invalid)
    func invalidConfigNamesTheField(body: String, status: Int, field: String) throws {
        let server = try TestServer()
        let reply = try server.createButton(body)
        #expect(reply.status == status)
        #expect(reply.json["error"]?["field"] == .string(field))
        #expect(try server.client.get("/api/v1/buttons").json["buttons"]?.array.isEmpty == true)
    }

    @Test func malformedAndNonJSONBodies() throws {
        let server = try TestServer()
        #expect(try server.createButton("{\"id\": ").status == 400)
        #expect(try server.createButton("[1]").status == 400)
        let form = try server.client.request(
            "POST", "/api/v1/buttons", body: Array("id=x".utf8), headers: ["Content-Type": "text/plain"])
        #expect(form.status == 415)
        let method = try server.client.request("PUT", "/api/v1/buttons", json: "{}")
        #expect(method.status == 405)
        #expect(method.header("allow")?.contains("POST") == true)
        #expect(try server.client.get("/api/v1/nope").status == 404)
    }

    @Test func toggleDefaultsAndFlipSettings() throws {
        let server = try TestServer()
        let reply = try server.createButton(
            ##"{"id": "lamp", "kind": "toggle", "faces": [{"label": "Off"}, {"label": "On", "color": "#ffcc00"}], "flip": {"transition": "curl-up", "curve": "linear", "durationMs": 250}, "group": "living", "order": 2}"##)
        #expect(reply.status == 201)
        #expect(reply.json["faces"] == [["label": "Off"], ["label": "On", "color": "#ffcc00"]])
        #expect(reply.json["flip"] == ["transition": "curl-up", "curve": "linear", "durationMs": 250])
        #expect(reply.json["group"] == "living")
        #expect(reply.json["order"] == 2)
    }

    /// A push button given a flip keeps it, shows it, and a later PATCH to toggle uses it
    /// (it was taken and then dropped from every answer).
    @Test func aFlipGivenToAPushButtonIsKeptForWhenItBecomesAToggle() throws {
        let server = try TestServer()
        let reply = try server.createButton(#"{"id": "bell", "flip": {"transition": "none"}}"#)
        #expect(reply.status == 201)
        #expect(reply.json["flip"]?["transition"] == "none")
        let toggled = try server.client.request("PATCH", "/api/v1/buttons/bell", json: #"{"kind": "toggle"}"#)
        #expect(toggled.json["flip"]?["transition"] == "none")
    }

    @Test func sheetsCRUDAndActions() throws {
        let server = try TestServer()
        let created = try server.post(
            "/api/v1/sheets",
            #"{"id": "scene", "title": "Choose a scene", "options": [{"id": "movie", "label": "Movie"}, {"id": "off", "label": "All off", "destructive": true}]}"#)
        #expect(created.status == 201)
        #expect(created.json["cancelLabel"] == "Cancel")
        #expect(created.json["state"] == ["open": false])
        #expect(try server.client.get("/api/v1/sheets").json["sheets"]?.array.count == 1)

        let opened = try server.post("/api/v1/sheets/scene/open")
        #expect(TestServer.types(opened) == ["sheet-open"])
        #expect(opened.json["events"]?.array.first?["sheet"] == "scene")
        #expect(try server.client.get("/api/v1/sheets/scene").json["state"] == ["open": true])

        let chosen = try server.post("/api/v1/sheets/scene/choose", #"{"option": "off"}"#)
        #expect(TestServer.types(chosen) == ["select"])
        #expect(chosen.json["events"]?.array.first?["data"] == ["option": "off", "index": 1])
        #expect(try server.client.get("/api/v1/sheets/scene").json["state"] == ["open": false])

        let byIndex = try server.post("/api/v1/sheets/scene/choose", #"{"option": 0}"#)
        #expect(byIndex.json["events"]?.array.first?["data"] == ["option": "movie", "index": 0])
        let unknown = try server.post("/api/v1/sheets/scene/choose", #"{"option": "nope"}"#)
        #expect(unknown.status == 422)
        #expect(try server.post("/api/v1/sheets/scene/choose", #"{"option": 9}"#).status == 422)

        _ = try server.post("/api/v1/sheets/scene/open")
        #expect(TestServer.types(try server.post("/api/v1/sheets/scene/cancel")) == ["sheet-cancel"])

        let patched = try server.client.request("PATCH", "/api/v1/sheets/scene", json: #"{"title": "Scenes"}"#)
        #expect(patched.json["title"] == "Scenes")
        let bad = try server.post("/api/v1/sheets", #"{"id": "s2", "options": [{"id": "a"}, {"id": "a"}]}"#)
        #expect(bad.status == 422)
        #expect(try server.client.request("DELETE", "/api/v1/sheets/scene").status == 204)
        #expect(try server.post("/api/v1/sheets/scene/open").status == 404)
    }
}
