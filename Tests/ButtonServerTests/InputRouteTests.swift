import Foundation
import MicroHTTP
import Testing

@Suite("Input API and events over HTTP")
struct InputRouteTests {
    @Test func tapThroughDownAndUp() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "door", "maxTaps": 1}"#)
        let down = try server.post("/api/v1/buttons/door/down", #"{"t": 1700000001000, "pointer": 7}"#)
        #expect(down.status == 200)
        #expect(TestServer.types(down) == ["touch-down"])
        #expect(down.json["events"]?.array.first?["data"] == ["pointer": "7"])
        #expect(try server.client.get("/api/v1/buttons/door").json["state"]?["held"] == true)
        let up = try server.post("/api/v1/buttons/door/up", #"{"t": 1700000001100}"#)
        #expect(TestServer.types(up) == ["touch-up-inside", "tap", "single-tap"])
        let first = try #require(up.json["events"]?.array.first)
        #expect(first["button"] == "door")
        #expect(first["t"] == 1_700_000_001_100)
        #expect(first["at"] == "2023-11-14T22:13:21.100Z")
        #expect(first["data"]?["durationMs"] == 100)
        #expect(first["id"]?.string?.hasPrefix("evt_") == true)
    }

    @Test func inputErrors() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "b"}"#)
        #expect(try server.post("/api/v1/buttons/nope/down").status == 404)
        let notDown = try server.post("/api/v1/buttons/b/up", #"{"t": 1700000000010}"#)
        #expect(notDown.status == 409)
        #expect(notDown.errorCode == "not_down")
        #expect(try server.post("/api/v1/buttons/b/move", #"{"t": 1700000000010, "inside": false}"#).errorCode == "not_down")
        #expect(try server.post("/api/v1/buttons/b/cancel", #"{"t": 1700000000010}"#).errorCode == "not_down")
        #expect(try server.post("/api/v1/buttons/b/down", #"{"t": 1700000000100}"#).status == 200)
        #expect(try server.post("/api/v1/buttons/b/down", #"{"t": 1700000000110}"#).errorCode == "already_down")
        let early = try server.post("/api/v1/buttons/b/up", #"{"t": 1700000000050}"#)
        #expect(early.status == 409)
        #expect(early.errorCode == "out_of_order")
        #expect(try server.post("/api/v1/buttons/b/move", #"{"t": 1700000000120}"#).status == 422)
        #expect(try server.post("/api/v1/buttons/b/move", #"{"t": 1700000000120, "inside": "no"}"#).status == 400)
        #expect(try server.post("/api/v1/buttons/b/up", #"{"t": -1}"#).status == 422)
        #expect(try server.post("/api/v1/buttons/b/up", #"{"t": 1700000000130, "extra": 1}"#).status == 422)
        #expect(try server.post("/api/v1/buttons/b/up", #"{"t": 1700000000130}"#).status == 200)
    }

    @Test func pressWithHoldIsALongPress() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "p", "longPressMs": 500}"#)
        let press = try server.post("/api/v1/buttons/p/press", #"{"t": 1700000005000, "holdMs": 700}"#)
        #expect(TestServer.types(press) == ["touch-down", "long-press", "touch-up-inside", "long-press-end"])
        let events = press.json["events"]!.array
        #expect(events[1]["t"] == 1_700_000_005_500)
        #expect(events[3]["data"]?["durationMs"] == 700)
        let quick = try server.post("/api/v1/buttons/p/press", #"{"t": 1700000009000}"#)
        #expect(TestServer.types(quick) == ["touch-down", "touch-up-inside", "tap"])
        // Held past maxHoldMs: the max-hold cancel ends the press; there is no up.
        try server.createButton(#"{"id": "q", "longPressMs": 500, "maxHoldMs": 1000}"#)
        let long = try server.post("/api/v1/buttons/q/press", #"{"t": 1700000005000, "holdMs": 1000}"#)
        #expect(long.status == 200)
        #expect(TestServer.types(long) == ["touch-down", "long-press", "touch-cancel"])
        #expect(long.json["events"]?.array.last?["data"]?["reason"] == "max-hold")
    }

    @Test func toggleStateAndFlip() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "lamp", "kind": "toggle", "maxTaps": 1}"#)
        let tap = try server.post("/api/v1/buttons/lamp/press", #"{"t": 1700000000100}"#)
        #expect(TestServer.types(tap) == ["touch-down", "touch-up-inside", "tap", "toggle", "single-tap"])
        #expect(tap.json["events"]?.array[3]["data"] == ["face": 1, "previousFace": 0])
        #expect(try server.client.get("/api/v1/buttons/lamp").json["state"]?["face"] == 1)
        let same = try server.client.request("PUT", "/api/v1/buttons/lamp/state", json: #"{"face": 1}"#)
        #expect(same.status == 200)
        #expect(TestServer.types(same).isEmpty)
        let back = try server.client.request("PUT", "/api/v1/buttons/lamp/state", json: #"{"face": 0}"#)
        #expect(TestServer.types(back) == ["toggle"])
        #expect(try server.client.request("PUT", "/api/v1/buttons/lamp/state", json: #"{"face": 2}"#).status == 422)
        try server.createButton(#"{"id": "push"}"#)
        #expect(try server.client.request("PUT", "/api/v1/buttons/push/state", json: #"{"face": 1}"#).status == 409)
    }

    @Test func batchIsAllOrNothing() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "a", "maxTaps": 1}"#)
        try server.createButton(#"{"id": "b", "maxTaps": 1}"#)
        let refused = try server.post(
            "/api/v1/input",
            #"[{"button": "a", "type": "down", "t": 1700000000010}, {"button": "b", "type": "up", "t": 1700000000020}]"#)
        #expect(refused.status == 409)
        #expect(refused.errorCode == "not_down")
        #expect(refused.json["error"]?["index"] == 1)
        #expect(try server.client.get("/api/v1/buttons/a").json["state"]?["held"] == false)
        #expect(try server.client.get("/api/v1/events").json["events"]?.array.isEmpty == true)
        let missing = try server.post("/api/v1/input", #"[{"button": "a", "type": "down"}, {"button": "zz", "type": "down"}]"#)
        #expect(missing.status == 404)
        #expect(missing.json["error"]?["index"] == 1)
        let invalid = try server.post("/api/v1/input", #"[{"button": "a", "type": "hover", "t": 1700000000001}]"#)
        #expect(invalid.status == 422)
        #expect(invalid.json["error"]?["field"] == "[0].type")

        let ok = try server.post(
            "/api/v1/input",
            #"[{"button": "a", "type": "down", "t": 1700000000010}, {"button": "b", "type": "down", "t": 1700000000011}, {"button": "a", "type": "up", "t": 1700000000020}, {"button": "b", "type": "up", "t": 1700000000021, "inside": false}]"#)
        #expect(ok.status == 200)
        #expect(
            TestServer.types(ok) == ["touch-down", "touch-down", "touch-up-inside", "tap", "single-tap", "touch-up-outside"])
        let buttons = ok.json["events"]!.array.map { $0["button"]!.string! }
        #expect(buttons == ["a", "b", "a", "a", "a", "b"])
    }

    @Test func replayingABatchGivesTheSameEvents() throws {
        let batch = { (name: String) in
            """
            [{"button": "\(name)", "type": "down", "t": 1700000001000}, {"button": "\(name)", "type": "up", "t": 1700000001100},
             {"button": "\(name)", "type": "down", "t": 1700000001250}, {"button": "\(name)", "type": "move", "t": 1700000001300, "inside": false},
             {"button": "\(name)", "type": "move", "t": 1700000001400, "inside": true}, {"button": "\(name)", "type": "up", "t": 1700000001900},
             {"button": "\(name)", "type": "down", "t": 1700000005000}, {"button": "\(name)", "type": "up", "t": 1700000005100}]
            """
        }
        func run() throws -> [JSONValue] {
            let server = try TestServer()
            try server.createButton(#"{"id": "r", "kind": "toggle", "repeatMs": 100}"#)
            let reply = try server.post("/api/v1/input", batch("r"))
            #expect(reply.status == 200)
            return reply.json["events"]!.array.map { event in
                guard case .object(var members) = event else { return event }
                members["id"] = nil
                return .object(members)
            }
        }
        let first = try run()
        let second = try run()
        #expect(first.count > 8)
        #expect(first == second)
        #expect(first.map { $0["seq"]!.int! } == Array(1...Int64(first.count)))
    }

    @Test func historyFilters() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "a"}"#)
        try server.createButton(#"{"id": "b"}"#)
        for t in stride(from: 1_700_000_000_100, through: 1_700_000_000_500, by: 100) {
            try server.post("/api/v1/buttons/a/down", "{\"t\": \(t)}")
            try server.post("/api/v1/buttons/a/cancel", "{\"t\": \(t + 10)}")
        }
        try server.post("/api/v1/buttons/b/down", #"{"t": 1700000000100}"#)
        let all = try server.client.get("/api/v1/events?after=0&limit=1000").json["events"]!.array
        #expect(all.count == 11)
        let seqs = all.map { $0["seq"]!.int! }
        #expect(seqs == Array(1...11))
        #expect(Set(all.map { $0["id"]!.string! }).count == 11)
        let page = try server.client.get("/api/v1/events?after=3&limit=2").json["events"]!.array
        #expect(page.map { $0["seq"]!.int! } == [4, 5])
        let onlyB = try server.client.get("/api/v1/events?after=0&button=b").json["events"]!.array
        #expect(onlyB.count == 1)
        let recent = try server.client.get("/api/v1/events?limit=3").json["events"]!.array
        #expect(recent.map { $0["seq"]!.int! } == [9, 10, 11])
        #expect(try server.client.get("/api/v1/events?after=-1").status == 422)
        #expect(try server.client.get("/api/v1/events?limit=0").status == 422)
    }
}
