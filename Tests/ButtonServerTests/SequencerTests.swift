import CSQLite
import Foundation
import MicroHTTP
import Synchronization
import Testing
import CurlHTTP

/// The sequencer as clients see it: every input and timer in one order, each answer with
/// exactly its own events, seq numbers without gaps, and replays that do not stall input.
@Suite("Sequencer: batching, order, seq numbers, replay")
struct SequencerTests {
    static func events(_ reply: HTTPClient.Reply) -> [JSONValue] { reply.json["events"]?.array ?? [] }

    /// Runs `body(i)` on `count` threads at once and waits for all.
    static func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) throws {
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        for i in 0..<count {
            DispatchQueue.global().async(group: group) {
                do { try body(i) } catch { failures.withLock { $0.append("\(i): \(error)") } }
            }
        }
        group.wait()
        let seen = failures.withLock { $0 }
        #expect(seen.isEmpty, "\(seen)")
    }

    @Test func concurrentAnswersCarryExactlyTheirOwnEvents() throws {
        let server = try TestServer()
        let clients = 12, presses = 40
        for i in 0..<clients { try server.createButton("{\"id\": \"c\(i)\", \"maxTaps\": 1}") }
        let answers = Mutex<[[JSONValue]]>([])
        try Self.concurrently(clients) { i in
            let client = HTTPClient(port: server.app.port)
            for k in 0..<presses {
                let reply = try client.request("POST", "/api/v1/buttons/c\(i)/press", json: "{\"t\": \(1_700_000_001_000 + k * 100)}")
                guard reply.status == 200 else { throw HTTPError(reply.status, code: "x", message: reply.text) }
                answers.withLock { $0.append(Self.events(reply)) }
            }
        }
        let all = answers.withLock { $0 }
        #expect(all.count == clients * presses)
        var seqs: [Int64] = []
        for events in all {
            // A press of a one-tap button: exactly these four, all of this press's button,
            // numbered one after another (an operation's events are never split).
            #expect(events.map { $0["type"]?.string ?? "" } == ["touch-down", "touch-up-inside", "tap", "single-tap"])
            #expect(Set(events.map { $0["button"]?.string ?? "" }).count == 1)
            let own = events.compactMap { $0["seq"]?.int }
            #expect(own == Array(own.first!..<own.first! + Int64(own.count)))
            seqs += own
        }
        // Every seq from 1 to the end once: no gap, nothing twice, and the log agrees.
        #expect(seqs.sorted() == Array(1...Int64(clients * presses * 4)))
        let logged = try server.client.get("/api/v1/events?after=0&limit=1000").json["events"]!.array
        #expect(logged.count == 1000)
        let byID = Dictionary(uniqueKeysWithValues: all.flatMap { $0 }.map { ($0["seq"]!.int!, $0) })
        for event in logged { #expect(byID[event["seq"]!.int!] == event) }
    }

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

    /// A trigger that refuses events of button `doomed` makes the store fail the commit.
    static func withFailingStore(_ dataDir: String, _ body: () throws -> Void) throws {
        var db: OpaquePointer?
        #expect(sqlite3_open(dataDir + "/buttond.sqlite3", &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        sqlite3_busy_timeout(db, 5000)
        let create = """
            CREATE TRIGGER doomed BEFORE INSERT ON events WHEN NEW.button = 'doomed'
            BEGIN SELECT RAISE(ABORT, 'disk says no'); END
            """
        #expect(sqlite3_exec(db, create, nil, nil, nil) == SQLITE_OK)
        try body()
        #expect(sqlite3_exec(db, "DROP TRIGGER doomed", nil, nil, nil) == SQLITE_OK)
    }

    @Test func aFailedCommitUsesNoSeqNumbers() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "ok", "maxTaps": 1}"#)
        try server.createButton(#"{"id": "doomed", "maxTaps": 1}"#)
        let before = Self.events(try server.post("/api/v1/buttons/ok/press", #"{"t": 1700000001000}"#))
        #expect(before.last?["seq"] == 4)
        try Self.withFailingStore(server.dataDir) {
            for k in 0..<20 {
                let refused = try server.post("/api/v1/buttons/doomed/press", "{\"t\": \(1_700_000_002_000 + k * 100)}")
                #expect(refused.status == 503)
                #expect(refused.json["error"]?["code"] == "unavailable")
            }
            // Nothing of a refused press happened: the button is not held, its clock unmoved.
            #expect(try server.client.get("/api/v1/buttons/doomed").json["state"]?["held"] == false)
        }
        let after = Self.events(try server.post("/api/v1/buttons/doomed/press", #"{"t": 1700000001500}"#))
        #expect(after.map { $0["seq"]!.int! } == [5, 6, 7, 8])
        let ok = Self.events(try server.post("/api/v1/buttons/ok/press", #"{"t": 1700000003000}"#))
        #expect(ok.first?["seq"] == 9)
        let logged = try server.client.get("/api/v1/events?after=0").json["events"]!.array.map { $0["seq"]!.int! }
        #expect(logged == Array(1...12))
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
