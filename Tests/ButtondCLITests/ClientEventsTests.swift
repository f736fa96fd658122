import CurlHTTP
import Foundation
import JSON
import Testing

import TestSupport

/// `input`, `buttons`, `events --button/--limit`, `press --wait` and the key order.
@Suite("The client commands for events")
struct ClientEventsTests {
    @Test func inputPostsABatchFromAFileOrStdin() throws {
        let server = try CLIServer()
        try server.post("/api/v1/buttons", #"{"id": "door", "maxTaps": 1}"#)
        let batch = #"[{"button": "door", "type": "down"}, {"button": "door", "type": "up"}]"#
        let (status, out, err) = try server.run(["input", "-"], stdin: batch)
        #expect(status == 0, "\(err)")
        #expect(CLIServer.types(out) == ["touch-down", "touch-up-inside", "tap", "single-tap"])
        let file = NSTemporaryDirectory() + "batch-\(UUID().uuidString).json"
        try Data(batch.utf8).write(to: URL(fileURLWithPath: file))
        #expect(CLIServer.types(try server.run(["input", file]).1).count == 4)
        let (refused, _, why) = try server.run(["input", "-"], stdin: #"[{"buton": "door", "type": "down"}]"#)
        #expect(refused == 1)
        #expect(why.contains("[0].buton"))
    }

    @Test func buttonsListsIdKindLabelGroup() throws {
        let server = try CLIServer()
        try server.post("/api/v1/buttons", #"{"id": "door", "label": "Front door", "group": "lobby"}"#)
        try server.post("/api/v1/buttons", #"{"id": "lamp", "kind": "toggle", "faces": [{"label": "Off"}, {"label": "On"}]}"#)
        let (status, out, err) = try server.run(["buttons"])
        #expect(status == 0, "\(err)")
        let rows = out.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(rows.first == ["ID", "KIND", "LABEL", "GROUP"])
        #expect(rows.contains(["door", "push", "Front", "door", "lobby"]))
        #expect(rows.contains(["lamp", "toggle", "lamp", "-"]))
    }

    @Test func eventsFiltersByButtonAndLimits() throws {
        let server = try CLIServer()
        for id in ["a", "b"] { try server.post("/api/v1/buttons", #"{"id": "\#(id)", "maxTaps": 1}"#) }
        for id in ["a", "b", "a"] { try server.post("/api/v1/buttons/\(id)/press") }
        let (status, out, err) = try server.run(["events", "--button", "b"])
        #expect(status == 0, "\(err)")
        #expect(CLIServer.types(out) == ["touch-down", "touch-up-inside", "tap", "single-tap"])
        #expect(!out.contains(#""button":"a""#))
        let (_, limited, _) = try server.run(["events", "--button", "a", "--limit", "2"])
        #expect(CLIServer.types(limited) == ["tap", "single-tap"])
        #expect(try server.run(["events", "--button", "nope"]).0 == 1)
        #expect(try server.run(["events", "--limit", "x"]).0 == 2)
    }

    @Test func pressWaitPrintsTheWholeSeries() throws {
        let server = try CLIServer()
        try server.post("/api/v1/buttons", #"{"id": "door", "multiTapMs": 400}"#)
        let (plain, quick, _) = try server.run(["press", "door"])
        #expect(plain == 0)
        #expect(CLIServer.types(quick) == ["touch-down", "touch-up-inside", "tap"])
        Thread.sleep(forTimeInterval: 0.6)
        let started = Date()
        let (status, out, err) = try server.run(["press", "door", "--wait"])
        #expect(status == 0, "\(err)")
        #expect(CLIServer.types(out) == ["touch-down", "touch-up-inside", "tap", "single-tap"])
        #expect(Date().timeIntervalSince(started) >= 0.35)
        let (held, long, _) = try server.run(["press", "door", "--hold", "600", "--wait"])  // a long press: no series
        #expect(held == 0)
        #expect(CLIServer.types(long).last == "long-press-end")
    }

    @Test func everyCommandPrintsTheServersKeyOrder() throws {
        let server = try CLIServer()
        try server.post("/api/v1/buttons", #"{"id": "door", "maxTaps": 1}"#)
        let order = ["id", "seq", "type", "button", "t", "at", "data"]
        let pressed = try server.run(["press", "door"]).1
        let listed = try server.run(["events"]).1
        let batch = try server.run(["input", "-"], stdin: #"[{"button": "door", "type": "down"}]"#).1
        for line in (pressed + listed + batch).split(separator: "\n") {
            #expect(Array(CLIServer.keyOrder(line).prefix(order.count)) == order, "\(line)")
        }
    }
}
