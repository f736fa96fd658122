import CurlHTTP
import Foundation
import MicroHTTP
import TestSupport
import Testing

/// SPEC §4 "Guards" through the real server: each rule as one batch with exact `t`s (the
/// engine's table tests hold the same rules without a server), an armed window that closes by
/// itself in real time, disabling, and the refusals of every way in.
@Suite("Guards over HTTP")
struct GuardRouteTests {
    static let t0: Int64 = 1_700_000_000_000

    /// A batch of `(button, type, t)` inputs at `t0` + the given offsets.
    static func batch(_ items: [(String, String, Int64)]) -> String {
        "[" + items.map { #"{"button": "\#($0.0)", "type": "\#($0.1)", "t": \#(t0 + $0.2)}"# }.joined(separator: ", ") + "]"
    }

    /// Each event as `type@offset`, with its reason when it has one (`refused:too-short@99`).
    static func timeline(_ reply: HTTPClient.Reply) -> [String] {
        (reply.json["events"]?.array ?? []).map { event in
            let reason = event["data"]?["reason"]?.string.map { ":" + $0 } ?? ""
            return "\(event["type"]!.string!)\(reason)@\(event["t"]!.int! - t0)"
        }
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// The next control event on `stream`, past registry messages.
    static func nextControlEvent(_ stream: StreamReader) throws -> JSONValue {
        while true {
            let message = try stream.nextEvent()
            if message.event == nil { return try JSONParser.parse(Array(message.data.utf8)) }
        }
    }

    @Test func aBrushIsRefusedTooShortAndAHeldPressTaps() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "brush", "minPressMs": 100, "maxTaps": 1}"#)
        let reply = try server.post(
            "/api/v1/input",
            Self.batch([
                ("brush", "down", 0), ("brush", "up", 99),  // held 99 ms: a brush
                ("brush", "down", 1000), ("brush", "up", 1100),  // exactly minPressMs: a tap
            ]))
        #expect(reply.status == 200)
        #expect(
            Self.timeline(reply) == [
                "touch-down@0", "touch-up-inside@99", "refused:too-short@99",
                "touch-down@1000", "touch-up-inside@1100", "tap@1100", "single-tap@1100",
            ])
        #expect(reply.json["events"]?.array[2]["data"] == ["durationMs": 99, "reason": "too-short"])
    }

    @Test func aPressTooSoonAfterAFireIsLockedOut() throws {
        let server = try TestServer()
        // No maxTaps given: a lockout makes it 1.
        let created = try server.createButton(#"{"id": "go", "lockoutMs": 1000}"#)
        #expect(created.json["maxTaps"] == 1 && created.json["lockoutMs"] == 1000)
        let reply = try server.post(
            "/api/v1/input",
            Self.batch([
                ("go", "down", 0), ("go", "up", 50),  // fires: locked until 1050
                ("go", "down", 500), ("go", "up", 550),  // a double GO: refused
                ("go", "down", 1049), ("go", "up", 1060),  // its down a ms early: refused
                ("go", "down", 1100), ("go", "up", 1150),  // after the lockout: fires
            ]))
        #expect(
            Self.timeline(reply) == [
                "touch-down@0", "touch-up-inside@50", "tap@50", "single-tap@50",
                "touch-down@500", "touch-up-inside@550", "refused:locked-out@550",
                "touch-down@1049", "touch-up-inside@1060", "refused:locked-out@1060",
                "touch-down@1100", "touch-up-inside@1150", "tap@1150", "single-tap@1150",
            ])
    }

    @Test func aConfirmKeyArmsFiresIgnoresANervousDoubleTapTimesOutAndCancels() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "blackout", "confirmMs": 3000, "multiTapMs": 300}"#)
        let reply = try server.post(
            "/api/v1/input",
            Self.batch([
                ("blackout", "down", 0), ("blackout", "up", 50),  // arms until 3050
                ("blackout", "down", 200), ("blackout", "up", 250),  // nervous: before 50 + 300
                ("blackout", "down", 350), ("blackout", "up", 400),  // deliberate: fires
                ("blackout", "down", 5000), ("blackout", "up", 5050),  // arms until 8050
                ("blackout", "down", 9000), ("blackout", "up", 9050),  // the window closed first; arms again
                ("blackout", "down", 9500), ("blackout", "cancel", 9600),  // backing out
            ]))
        #expect(reply.status == 200)
        #expect(
            Self.timeline(reply) == [
                "touch-down@0", "touch-up-inside@50", "armed@50",
                "touch-down@200", "touch-up-inside@250",
                "touch-down@350", "touch-up-inside@400", "tap@400", "single-tap@400", "disarmed:fired@400",
                "touch-down@5000", "touch-up-inside@5050", "armed@5050",
                "disarmed:timeout@8050", "touch-down@9000", "touch-up-inside@9050", "armed@9050",
                "touch-down@9500", "touch-cancel@9600", "disarmed:cancel@9600",
            ])
        #expect(reply.json["events"]?.array[2]["data"] == ["windowMs": 3000])
        // Sliding off is backing out too; the state says armed while the window is open.
        let again = try server.post(
            "/api/v1/input", Self.batch([("blackout", "down", 10_000), ("blackout", "up", 10_050)]))
        #expect(Self.timeline(again).last == "armed@10050")
        let state = try server.client.get("/api/v1/buttons/blackout").json["state"]
        #expect(state?["armed"] == true && state?["armedUntil"] == .int(Self.t0 + 13_050))
        let off = try server.post(
            "/api/v1/input",
            #"[{"button": "blackout", "type": "down", "t": \#(Self.t0 + 10_500)}, {"button": "blackout", "type": "up", "t": \#(Self.t0 + 10_600), "inside": false}]"#)
        #expect(Self.timeline(off) == ["touch-down@10500", "touch-up-outside@10600", "disarmed:cancel@10600"])
        #expect(try server.client.get("/api/v1/buttons/blackout").json["state"]?["armed"] == false)
        // The history holds what the answers held, the three new types among them.
        let history = try server.client.get("/api/v1/events?after=0&limit=100").json["events"]!.array.map { $0["type"]!.string! }
        #expect(history.filter { $0 == "armed" }.count == 4 && history.filter { $0 == "disarmed" }.count == 4)
    }

    /// The rule this was built for: an armed window ends on time with nobody pressing, as a
    /// long press does (the same timer path), and every watcher sees it.
    @Test func anArmedWindowClosesByItselfOnTime() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "cue", "confirmMs": 500}"#)
        let stream = try server.client.stream("/api/v1/events/stream?button=cue")
        let press = try server.post("/api/v1/buttons/cue/press")
        #expect(TestServer.types(press) == ["touch-down", "touch-up-inside", "armed"])
        let armedUntil = try #require(try server.client.get("/api/v1/buttons/cue").json["state"]?["armedUntil"]?.int)
        let armedAt = try #require(press.json["events"]?.array.last?["t"]?.int)
        #expect(armedUntil == armedAt + 500)
        var disarmed: JSONValue?
        var arrivedAt: Int64 = 0
        while disarmed == nil {
            let event = try Self.nextControlEvent(stream)
            if event["type"] == "disarmed" {
                arrivedAt = Self.now()
                disarmed = event
            }
        }
        #expect(disarmed?["data"] == ["reason": "timeout"])
        #expect(disarmed?["t"]?.int == armedUntil)
        #expect(arrivedAt >= armedUntil - 5, "it came \(armedUntil - arrivedAt) ms before its deadline")
        #expect(arrivedAt - armedUntil < 100, "it came \(arrivedAt - armedUntil) ms after its deadline")
        let state = try server.client.get("/api/v1/buttons/cue").json["state"]
        #expect(state?["armed"] == false && state?["armedUntil"] == nil)
    }

    @Test func disablingEndsAHeldPressASeriesAndAnArmedWindow() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "held", "longPressMs": 60000}"#)
        try server.createButton(#"{"id": "series", "multiTapMs": 5000, "maxTaps": 3}"#)
        try server.createButton(#"{"id": "armed", "confirmMs": 60000}"#)
        #expect(try server.post("/api/v1/buttons/held/down").status == 200)
        #expect(TestServer.types(try server.post("/api/v1/buttons/series/press")) == ["touch-down", "touch-up-inside", "tap"])
        #expect(TestServer.types(try server.post("/api/v1/buttons/armed/press")).last == "armed")
        let stream = try server.client.stream("/api/v1/events/stream", headers: ["Last-Event-ID": "7"])

        let patched = try server.client.request("PATCH", "/api/v1/buttons/held", json: #"{"enabled": false}"#)
        #expect(patched.status == 200)
        #expect(patched.json["enabled"] == false)
        #expect(patched.json["state"]?["held"] == false, "the answer shows the state the disable left")
        try server.client.request("PATCH", "/api/v1/buttons/series", json: #"{"enabled": false}"#)
        let armed = try server.client.request("PATCH", "/api/v1/buttons/armed", json: #"{"enabled": false}"#)
        #expect(armed.json["state"]?["armed"] == false)

        var seen: [String] = []
        while seen.count < 3 {
            let event = try Self.nextControlEvent(stream)
            seen.append("\(event["button"]!.string!) \(event["type"]!.string!) \(event["data"]?["reason"]?.string ?? "")")
        }
        #expect(seen == ["held touch-cancel disabled", "series single-tap ", "armed disarmed cancel"])
        // Enabling emits nothing, and the button takes input again.
        let history = { try server.client.get("/api/v1/events?after=0&limit=100").json["events"]!.array.count }
        let before = try history()
        let enabled = try server.client.request("PATCH", "/api/v1/buttons/held", json: #"{"enabled": true}"#)
        #expect(enabled.json["enabled"] == true)
        #expect(try history() == before)
        #expect(TestServer.types(try server.post("/api/v1/buttons/held/down")) == ["touch-down"])
    }

    /// A config import that disables a held button ends its press as a PATCH does.
    @Test func anImportThatDisablesAHeldButtonCancelsItsPress() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "stage", "longPressMs": 60000}"#)
        #expect(try server.post("/api/v1/buttons/stage/down").status == 200)
        let imported = try server.client.request(
            "PUT", "/api/v1/config", json: #"{"buttons": [{"id": "stage", "longPressMs": 60000, "enabled": false}]}"#)
        #expect(imported.status == 200, "\(imported.text)")
        // The import answers once its job is done; the cancel is committed right after it.
        var events: [JSONValue] = []
        #expect(eventually(5) {
            events = (try? server.client.get("/api/v1/events?after=0").json["events"]?.array) ?? []
            return events.count >= 2
        })
        #expect(events.map { $0["type"]!.string! } == ["touch-down", "touch-cancel"])
        #expect(events.last?["data"] == ["reason": "disabled"])
        let button = try server.client.get("/api/v1/buttons/stage").json
        #expect(button["enabled"] == false && button["state"]?["held"] == false)
        #expect(try server.post("/api/v1/buttons/stage/up").errorCode == "button_disabled")
    }

    /// Handlers may listen for the guards' events like any (SPEC §4): a webhook on `armed`,
    /// `disarmed` and `refused` gets exactly those, signed as any delivery.
    @Test func aHandlerHearsTheGuardsEvents() throws {
        let server = try TestServer()
        let sink = try Sink()
        defer { sink.stop() }
        try server.createButton(#"{"id": "bo", "confirmMs": 3000, "minPressMs": 50}"#)
        let created = try server.post(
            "/api/v1/buttons/bo/handlers", #"{"on": ["armed", "disarmed", "refused"], "webhook": {"url": "\#(sink.url("/guard"))"}}"#)
        #expect(created.status == 201, "\(created.text)")
        try sink.setSecret(try #require(created.json["secret"]?.string))
        let reply = try server.post(
            "/api/v1/input",
            Self.batch([
                ("bo", "down", 0), ("bo", "up", 10),  // a brush: refused
                ("bo", "down", 100), ("bo", "up", 200),  // arms
                ("bo", "down", 600), ("bo", "up", 700),  // fires: tap, single-tap, disarmed
            ]))
        #expect(reply.status == 200)
        let got = sink.wait(seconds: 20) { $0.count >= 3 }
        #expect(got.compactMap { $0.json?["type"]?.string } == ["refused", "armed", "disarmed"])
        #expect(got.allSatisfy { $0.verified == true })
        #expect(got.first?.json?["data"] == ["durationMs": 10, "reason": "too-short"])
    }

    @Test func aDisabledButtonRefusesEveryInputOverHTTP() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "off", "kind": "toggle", "enabled": false}"#)
        try server.createButton(#"{"id": "on"}"#)
        #expect(try server.client.get("/api/v1/buttons/off").json["enabled"] == false)
        for kind in ["down", "move", "up", "cancel", "press"] {
            let body = kind == "move" ? #"{"inside": false}"# : "{}"
            let reply = try server.post("/api/v1/buttons/off/\(kind)", body)
            #expect(reply.status == 409 && reply.errorCode == "button_disabled", "\(kind): \(reply.status) \(reply.text)")
        }
        let face = try server.client.request("PUT", "/api/v1/buttons/off/state", json: #"{"face": 1}"#)
        #expect(face.status == 409 && face.errorCode == "button_disabled")
        // A batch naming it is refused whole, naming the item.
        let batch = try server.post("/api/v1/input", Self.batch([("on", "down", 0), ("on", "up", 50), ("off", "down", 60)]))
        #expect(batch.status == 409 && batch.errorCode == "button_disabled")
        #expect(batch.json["error"]?["index"] == 2)
        #expect(try server.client.get("/api/v1/events?after=0").json["events"] == .array([]))
        #expect(try server.client.get("/api/v1/buttons/off").json["state"]?["face"] == 0)
        // A reset puts a button at rest, which a disabled one is: it is not input.
        #expect(try server.post("/api/v1/buttons/off/reset").status == 200)
    }

    @Test(arguments: [
        (#"{"id": "x", "minPressMs": 5}"#, "minPressMs"),
        (#"{"id": "x", "minPressMs": 2001}"#, "minPressMs"),
        (#"{"id": "x", "minPressMs": "100"}"#, "minPressMs"),
        (#"{"id": "x", "minPressMs": 50.5}"#, "minPressMs"),
        (#"{"id": "x", "lockoutMs": 49}"#, "lockoutMs"),
        (#"{"id": "x", "lockoutMs": 60001}"#, "lockoutMs"),
        (#"{"id": "x", "lockoutMs": -1}"#, "lockoutMs"),
        (#"{"id": "x", "lockoutMs": true}"#, "lockoutMs"),
        (#"{"id": "x", "confirmMs": 499}"#, "confirmMs"),
        (#"{"id": "x", "confirmMs": 60001}"#, "confirmMs"),
        (#"{"id": "x", "confirmMs": [3000]}"#, "confirmMs"),
        (#"{"id": "x", "enabled": "false"}"#, "enabled"),
        (#"{"id": "x", "enabled": 0}"#, "enabled"),
        (#"{"id": "x", "lockoutMs": 500, "maxTaps": 2}"#, "maxTaps"),
        (#"{"id": "x", "confirmMs": 3000, "maxTaps": 5}"#, "maxTaps"),
    ])
    func aGuardOutOfRangeOrOfTheWrongTypeIs422NamingIt(body: String, field: String) throws {
        let server = try TestServer()
        let reply = try server.createButton(body)
        #expect(reply.status == 422, "\(body): \(reply.status) \(reply.text)")
        #expect(reply.json["error"]?["field"] == .string(field), "\(body): \(reply.text)")
        #expect(try server.client.get("/api/v1/buttons/x").status == 404)
    }

    @Test func aPatchThatAddsAGuardToADoubleTapButtonMustSayMaxTaps1() throws {
        let server = try TestServer()
        let created = try server.createButton(#"{"id": "door"}"#)
        #expect(created.json["maxTaps"] == 2 && created.json["minPressMs"] == 0 && created.json["enabled"] == true)
        let refused = try server.client.request("PATCH", "/api/v1/buttons/door", json: #"{"lockoutMs": 500}"#)
        #expect(refused.status == 422 && refused.json["error"]?["field"] == "maxTaps")
        #expect(refused.json["error"]?["message"]?.string?.contains(#""maxTaps": 1"#) == true)
        #expect(try server.client.get("/api/v1/buttons/door").json["lockoutMs"] == 0)
        let taken = try server.client.request("PATCH", "/api/v1/buttons/door", json: #"{"lockoutMs": 500, "maxTaps": 1}"#)
        #expect(taken.status == 200 && taken.json["lockoutMs"] == 500 && taken.json["maxTaps"] == 1)
        // Once guarded, a maxTaps above 1 is refused; a guard of 0 is off and allows it again.
        #expect(try server.client.request("PATCH", "/api/v1/buttons/door", json: #"{"maxTaps": 2}"#).status == 422)
        let off = try server.client.request("PATCH", "/api/v1/buttons/door", json: #"{"lockoutMs": 0, "maxTaps": 2}"#)
        #expect(off.status == 200 && off.json["maxTaps"] == 2)
        // minPressMs alone does not limit the series.
        let brush = try server.client.request("PATCH", "/api/v1/buttons/door", json: #"{"minPressMs": 40}"#)
        #expect(brush.status == 200 && brush.json["maxTaps"] == 2 && brush.json["minPressMs"] == 40)
    }

    @Test func anArmedWindowOutlivesARestartAndClosesOnTime() throws {
        let dir = NSTemporaryDirectory() + "buttond-guards-\(UUID().uuidString)"
        let armedUntil: Int64
        do {
            let server = try TestServer(dataDir: dir)
            try server.createButton(#"{"id": "cue", "confirmMs": 3000}"#)
            #expect(TestServer.types(try server.post("/api/v1/buttons/cue/press")).last == "armed")
            armedUntil = try #require(try server.client.get("/api/v1/buttons/cue").json["state"]?["armedUntil"]?.int)
            server.stop()
        }
        let server = try TestServer(dataDir: dir)
        let state = try server.client.get("/api/v1/buttons/cue").json["state"]
        #expect(state?["armed"] == true && state?["armedUntil"]?.int == armedUntil)
        let stream = try server.client.stream("/api/v1/events/stream?button=cue&after=0")
        var last: JSONValue?
        while last?["type"] != "disarmed" { last = try Self.nextControlEvent(stream) }
        #expect(last?["t"]?.int == armedUntil && last?["data"] == ["reason": "timeout"])
        #expect(Self.now() - armedUntil < 500)
    }
}
