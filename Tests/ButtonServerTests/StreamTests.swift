import Foundation
import MicroHTTP
import Testing

@Suite("Event stream over HTTP")
struct StreamTests {
    @Test func longPressArrivesWhileStillHeld() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "hold", "longPressMs": 200}"#)
        let stream = try server.client.stream("/api/v1/events/stream")
        #expect(stream.status == 200)
        #expect(stream.headers["content-type"] == "text/event-stream")
        let down = try server.post("/api/v1/buttons/hold/down")
        #expect(TestServer.types(down) == ["touch-down"])
        let first = try stream.nextEvent()
        #expect(first.id == "1")
        #expect(try JSONParser.parse(Array(first.data.utf8))["type"] == "touch-down")
        let second = try stream.nextEvent()
        let event = try JSONParser.parse(Array(second.data.utf8))
        #expect(event["type"] == "long-press")
        #expect(second.id == "2")
        // Still held when it arrived: the button's state says so, and the up is the end of it.
        #expect(try server.client.get("/api/v1/buttons/hold").json["state"]?["held"] == true)
        let up = try server.post("/api/v1/buttons/hold/up")
        #expect(TestServer.types(up) == ["touch-up-inside", "long-press-end"])
        let history = try server.client.get("/api/v1/events?after=0").json["events"]!.array
        #expect(history.map { $0["type"]!.string! } == ["touch-down", "long-press", "touch-up-inside", "long-press-end"])
    }

    @Test func resumesWithLastEventID() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "s", "maxTaps": 1}"#)
        for t in [1_700_000_000_100, 1_700_000_000_300, 1_700_000_000_500] { try server.post("/api/v1/buttons/s/press", "{\"t\": \(t)}") }
        // 3 presses x 4 events = 12; resume after 9.
        let stream = try server.client.stream("/api/v1/events/stream", headers: ["Last-Event-ID": "9"])
        let ids = try (0..<3).map { _ in try stream.nextEvent().id }
        #expect(ids == ["10", "11", "12"])
        try server.post("/api/v1/buttons/s/down", #"{"t": 1700000000700}"#)
        #expect(try stream.nextEvent().id == "13")
        let byQuery = try server.client.stream("/api/v1/events/stream?after=11&button=s")
        #expect(try byQuery.nextEvent().id == "12")
    }

    @Test func aCursorPastTheNewestEventStillGetsNewEvents() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "s", "maxTaps": 1}"#)
        try server.post("/api/v1/buttons/s/press", #"{"t": 1700000000100}"#)
        // A client that remembers an id from an older data directory.
        let stream = try server.client.stream("/api/v1/events/stream", headers: ["Last-Event-ID": "999"])
        try server.post("/api/v1/buttons/s/down", #"{"t": 1700000000300}"#)
        #expect(try stream.nextEvent().id == "5")
    }

    @Test func tapSeriesEndFiresInRealTime() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "dbl", "multiTapMs": 150}"#)
        let stream = try server.client.stream("/api/v1/events/stream")
        let press = try server.post("/api/v1/buttons/dbl/press")
        #expect(TestServer.types(press) == ["touch-down", "touch-up-inside", "tap"])
        var types: [String] = []
        while types.count < 4 {
            let message = try stream.nextEvent()
            types.append(try JSONParser.parse(Array(message.data.utf8))["type"]!.string!)
        }
        #expect(types == ["touch-down", "touch-up-inside", "tap", "single-tap"])
    }
}
