import Foundation
import MicroHTTP
import Testing
import CurlHTTP

/// One careless client must not lock a button for good (SPEC §3): a `t` far ahead of the
/// server clock is refused, and `reset` brings a button back to rest at the server clock.
@Suite("Input time bounds and reset")
struct ClockBoundsTests {
    static let year9999: Int64 = 253_402_300_799_999

    @Test(arguments: [
        ("/api/v1/buttons/door/press", #"{"t": 253402300799999}"#, "t"),
        ("/api/v1/buttons/door/press", #"{"t": 253402300799999, "holdMs": 600}"#, "t"),
        ("/api/v1/buttons/door/down", #"{"t": 253402300799999}"#, "t"),
        ("/api/v1/input", #"[{"button": "door", "type": "down"}, {"button": "door", "type": "up", "t": 253402300799999}]"#, "[1].t"),
        ("/api/v1/sheets/menu/open", #"{"t": 253402300799999}"#, "t"),
    ])
    func aTimeFarAheadIsRefusedAndChangesNothing(path: String, body: String, field: String) throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "door", "maxTaps": 1}"#)
        try server.client.request("POST", "/api/v1/sheets", json: #"{"id": "menu", "options": [{"id": "a", "label": "A"}]}"#)
        let reply = try server.post(path, body)
        #expect(reply.status == 422, "\(reply.text)")
        #expect(reply.json["error"]?["code"] == "t_in_future")
        #expect(reply.json["error"]?["field"] == .string(field))
        // Nothing was applied: live input goes on as before.
        #expect(try server.post("/api/v1/buttons/door/press").status == 200)
        #expect(try server.client.get("/api/v1/events").json["events"]?.array.count == 4)
    }

    @Test func aTimeWithinTheBoundIsTaken() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "door", "maxTaps": 1}"#)
        let soon = Int64(Date().timeIntervalSince1970 * 1000) + 30_000
        #expect(try server.post("/api/v1/buttons/door/press", #"{"t": \#(soon)}"#).status == 200)
    }

    @Test func resetFreesAButtonWhoseClockWasPushedAhead() throws {
        // A generous bound lets a client push the clock ahead, as older versions let anyone.
        let server = try TestServer { $0.maxFutureMs = 315_360_000_000 }
        try server.createButton(#"{"id": "door", "longPressMs": 200}"#)
        let far = Int64(Date().timeIntervalSince1970 * 1000) + 100 * 86_400_000
        #expect(try server.post("/api/v1/buttons/door/down", #"{"t": \#(far)}"#).status == 200)
        let live = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(try server.post("/api/v1/buttons/door/up", #"{"t": \#(live)}"#).json["error"]?["code"] == "out_of_order")
        let reset = try server.post("/api/v1/buttons/door/reset")
        #expect(reset.status == 200, "\(reset.text)")
        #expect(TestServer.types(reset) == ["touch-cancel"])
        #expect(reset.json["events"]?.array.first?["data"]?["reason"] == "reset")
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(abs((reset.json["events"]?.array.first?["t"]?.int ?? 0) - now) < 5_000)
        // Live input works again, and the state says it is at rest.
        #expect(try server.client.get("/api/v1/buttons/door").json["state"]?["held"] == false)
        let after = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(TestServer.types(try server.post("/api/v1/buttons/door/down", #"{"t": \#(after)}"#)) == ["touch-down"])
        #expect(try server.post("/api/v1/buttons/ghost/reset").status == 404)
    }

    @Test func resetNeedsTheAdminToken() throws {
        let server = try TestServer {
            $0.adminToken = "admin-token-0123456789"
            $0.pressToken = "press-token-0123456789"
        }
        let admin = HTTPClient(port: server.app.port, token: "admin-token-0123456789")
        try admin.request("POST", "/api/v1/buttons", json: #"{"id": "door"}"#)
        let press = HTTPClient(port: server.app.port, token: "press-token-0123456789")
        #expect(try press.request("POST", "/api/v1/buttons/door/press", json: "{}").status == 200)
        #expect(try press.request("POST", "/api/v1/buttons/door/reset", json: "{}").status == 403)
        #expect(try admin.request("POST", "/api/v1/buttons/door/reset", json: "{}").status == 200)
    }
}
