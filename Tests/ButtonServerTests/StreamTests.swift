import CurlHTTP
import Foundation
import MicroHTTP
import Synchronization
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

    static func events(_ reply: HTTPClient.Reply) -> [JSONValue] { reply.json["events"]?.array ?? [] }

    // The sequencer's order as a stream client sees it: a timer's event amid other buttons'
    // input, and a long replay that live input neither stalls nor slips into.

    @Test func timersFireInOrderWithOtherButtonsInput() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "held", "longPressMs": 150}"#)
        for i in 0..<4 { try server.createButton("{\"id\": \"busy\(i)\", \"maxTaps\": 1}") }
        let stream = try server.client.stream("/api/v1/events/stream")
        let stop = Atomic<Bool>(false)
        let pressed = Atomic<Int>(0)
        let running = Atomic<Int>(0)
        for i in 0..<4 {
            // Threads of their own: the shared pool may be busy with other tests.
            running.add(1, ordering: .relaxed)
            Thread {
                let client = HTTPClient(port: server.app.port)
                while !stop.load(ordering: .relaxed) {
                    if (try? client.request("POST", "/api/v1/buttons/busy\(i)/press", json: "{}"))?.status == 200 {
                        pressed.add(1, ordering: .relaxed)
                    }
                }
                running.subtract(1, ordering: .relaxed)
            }.start()
        }
        while pressed.load(ordering: .relaxed) < 8 { usleep(1000) }
        let down = Self.events(try server.post("/api/v1/buttons/held/down"))
        let downT = down.first!["t"]!.int!
        // The long press reaches the stream while the button is still held.
        var seen: [JSONValue] = []
        while !seen.contains(where: { $0["type"] == "long-press" }) {
            seen.append(try JSONParser.parse(Array(try stream.nextEvent().data.utf8)))
        }
        let up = Self.events(try server.post("/api/v1/buttons/held/up"))
        stop.store(true, ordering: .relaxed)
        while running.load(ordering: .relaxed) > 0 { usleep(1000) }
        let longPress = seen.last!
        #expect(longPress["t"]?.int == downT + 150)
        #expect(longPress["button"] == "held")
        #expect(down.first!["seq"]!.int! < longPress["seq"]!.int!)
        #expect(longPress["seq"]!.int! < up.first!["seq"]!.int!)
        #expect(up.map { $0["type"]!.string! } == ["touch-up-inside", "long-press-end"])
        // The stream so far is in seq order, one by one, with the other buttons' input
        // around the long press.
        let seqs = seen.map { $0["seq"]!.int! }
        #expect(seqs == Array(seqs.first!..<seqs.first! + Int64(seqs.count)))
        #expect(seen.contains { $0["button"] != "held" })
    }

    @Test(.timeLimit(.minutes(5))) func replayOf200000EventsWhileOthersPress() throws {
        let server = try TestServer { $0.retention = 300_000 }
        try server.createButton(#"{"id": "h", "maxTaps": 1}"#)
        try server.createButton(#"{"id": "live", "maxTaps": 1}"#)
        // 100 batches of 500 presses, 4 events each: 200 000 events of history.
        for batch in 0..<100 {
            var inputs: [String] = []
            for k in 0..<500 {
                let t = 1_700_000_001_000 + (batch * 500 + k) * 10
                inputs.append("{\"button\": \"h\", \"type\": \"down\", \"t\": \(t)}")
                inputs.append("{\"button\": \"h\", \"type\": \"up\", \"t\": \(t + 5)}")
            }
            let reply = try server.post("/api/v1/input", "[" + inputs.joined(separator: ",") + "]")
            #expect(reply.status == 200)
        }
        let history = 200_000
        let stop = Atomic<Bool>(false)
        let pressed = Atomic<Int>(0)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            let client = HTTPClient(port: server.app.port)
            while !stop.load(ordering: .relaxed) {
                if (try? client.request("POST", "/api/v1/buttons/live/press", json: "{}"))?.status == 200 {
                    pressed.add(1, ordering: .relaxed)
                }
            }
        }
        let stream = try server.client.stream("/api/v1/events/stream?after=0")
        #expect(stream.status == 200)
        var expected: Int64 = 1
        var liveSeen = 0
        // Every event once and in order: the whole history, then live presses made meanwhile.
        while expected <= Int64(history) || liveSeen < 40 {
            let message = try stream.nextEvent()
            guard message.id == String(expected) else {
                Issue.record("expected id \(expected), got \(message.id)")
                break
            }
            if expected > Int64(history) { liveSeen += 1 }
            expected += 1
        }
        stop.store(true, ordering: .relaxed)
        group.wait()
        #expect(pressed.load(ordering: .relaxed) > 0)
        #expect(liveSeen >= 40)
    }
}
