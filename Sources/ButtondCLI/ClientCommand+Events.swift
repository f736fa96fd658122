import FoundationEssentials
import Platform
import CurlHTTP
import JSON

/// The commands that print events: one JSON line each, keys in the order the server sent them
/// (as `events --follow` prints the stream's lines).
extension ClientCommand {
    /// The events of `press` (`--hold` held for real), and with `--wait` the rest of its tap
    /// series: the delayed single-tap (or double-tap…) the press will end with.
    static func press(_ name: String, _ invocation: Invocation, _ client: HTTPClient, clock: Clock) throws -> Int32 {
        let reply: HTTPClient.Reply
        if let hold = invocation.hold {
            guard let held = try pressHeld(name, holdingFor: hold, client) else { return 0 }
            reply = held
        } else {
            reply = try client.request("POST", "/api/v1/buttons/\(name)/press", json: "{}")
        }
        let status = report(reply)
        guard status == 0, invocation.wait else { return status }
        return try waitForSeries(of: name, after: reply, client, clock: clock)
    }

    /// Held for real: the down now, the up `hold` ms later, so a long press fires live at its
    /// threshold (and handlers see it then, not all at once). Prints nothing and answers the
    /// history of the whole press (the timers' events included) as one reply; nil when a
    /// refusal was already reported.
    static func pressHeld(_ name: String, holdingFor hold: Int, _ client: HTTPClient) throws -> HTTPClient.Reply? {
        let down = try client.request("POST", "/api/v1/buttons/\(name)/down", json: "{}")
        guard (200..<300).contains(down.status), let first = seqs(down).first else { return refused(down) }
        usleep(useconds_t(min(hold, 3_600_000)) * 1000)
        let up = try client.request("POST", "/api/v1/buttons/\(name)/up", json: "{}")
        guard (200..<300).contains(up.status), let last = seqs(up).last else { return refused(up) }
        let history = try client.get("/api/v1/events?button=\(name)&after=\(first - 1)&limit=1000")
        let kept = (JSONSlices.elements(of: "events", in: history.body) ?? []).filter { slice in
            guard case .int(let seq)? = (try? JSONParser.parse(Array(slice)))?["seq"] else { return false }
            return seq <= last
        }
        return HTTPClient.Reply(status: 200, headers: [:], body: eventsBody(kept))
    }

    static func refused(_ reply: HTTPClient.Reply) -> HTTPClient.Reply? {
        _ = report(reply)
        return nil
    }

    static func eventsBody(_ events: [ArraySlice<UInt8>]) -> [UInt8] {
        Array(#"{"events":["#.utf8) + Array(events.joined(separator: [UInt8(ascii: ",")])) + Array("]}".utf8)
    }

    static let seriesEnds: Set<String> = ["single-tap", "double-tap", "triple-tap", "quadruple-tap", "quintuple-tap"]

    /// Follows the button's stream from the press's last event until its tap series ends (the
    /// n-tap event), or `multiTapMs` and a margin pass. A press that made no tap, or whose
    /// series already ended, has nothing to wait for.
    static func waitForSeries(of name: String, after reply: HTTPClient.Reply, _ client: HTTPClient, clock: Clock) throws -> Int32 {
        let types = types(reply)
        guard types.contains("tap"), !types.contains(where: seriesEnds.contains), let last = seqs(reply).last else { return 0 }
        var multiTapMs: Int64 = 300
        if case .int(let ms)? = try client.get("/api/v1/buttons/\(name)").json["multiTapMs"] { multiTapMs = ms }
        let deadline = clock.monotonic() + Double(multiTapMs + 2000) / 1000
        let stream = try client.stream("/api/v1/events/stream?button=\(name)&after=\(last)")
        defer { stream.close() }
        guard stream.status == 200 else { return fail("the stream answered HTTP \(stream.status)") }
        while true {
            let left = deadline - clock.monotonic()
            guard left > 0 else { return fail("no end of the tap series within \(multiTapMs + 2000) ms") }
            let message = try stream.next(within: left)
            guard message.event == nil, !message.comment else { continue }
            writeAll(1, (message.data + "\n").utf8)
            if case .string(let type)? = (try? JSONParser.parse(Array(message.data.utf8)))?["type"], seriesEnds.contains(type) {
                return 0
            }
        }
    }

    static func types(_ reply: HTTPClient.Reply) -> [String] {
        guard case .array(let events)? = reply.json["events"] else { return [] }
        return events.compactMap { event -> String? in
            if case .string(let type)? = event["type"] { return type }
            return nil
        }
    }

    static func seqs(_ reply: HTTPClient.Reply) -> [Int64] {
        guard case .array(let events)? = reply.json["events"] else { return [] }
        return events.compactMap { if case .int(let seq)? = $0["seq"] { seq } else { nil } }
    }

    /// The history as JSON lines; with `--follow`, then every new event as it comes (with
    /// `--limit N`, the last N first, like `tail -n N -f`).
    static func events(_ invocation: Invocation, _ client: HTTPClient) throws -> Int32 {
        var query: [String] = []
        if let button = invocation.button { query.append("button=\(button)") }
        if let after = invocation.after { query.append("after=\(after)") }
        if invocation.follow {
            if let limit = invocation.limit, invocation.after == nil {
                // The last N, printed; then the stream from the newest of them on.
                let recent = try client.get("/api/v1/events?" + (query + ["limit=\(limit)"]).joined(separator: "&"))
                guard recent.status == 200 else { return report(recent) }
                _ = report(recent)
                if let last = seqs(recent).last { query.append("after=\(last)") }
            }
            let path = "/api/v1/events/stream" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
            let status = try client.follow(path) { message in
                guard message.event == nil, !message.comment else { return }  // registry changes are not events
                writeAll(1, ((message.data + "\n").utf8))
            }
            return status == 200 ? 0 : fail("the server answered \(status)")
        }
        if let limit = invocation.limit { query.append("limit=\(limit)") }
        return report(try client.get("/api/v1/events" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))))
    }

    /// `input FILE|-`: posts a batch (a JSON array of inputs) and prints its events.
    static func input(_ file: String, _ client: HTTPClient) throws -> Int32 {
        let body: [UInt8]
        if file == "-" {
            body = readAll(0)
        } else {
            guard let data = FileManager.default.contents(atPath: file) else { return fail("cannot read \(file)") }
            body = Array(data)
        }
        return report(try client.request("POST", "/api/v1/input", body: body))
    }

    static func readAll(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return bytes }
            bytes += chunk[0..<n]
        }
    }

    /// `buttons`: one line per button, its id, kind, label and group in columns.
    static func buttons(_ client: HTTPClient) throws -> Int32 {
        let reply = try client.get("/api/v1/buttons")
        guard reply.status == 200, case .array(let buttons)? = reply.json["buttons"] else { return report(reply) }
        func text(_ value: JSONValue?) -> String { if case .string(let s)? = value { s } else { "-" } }
        let rows = [["ID", "KIND", "LABEL", "GROUP"]] + buttons.map { [text($0["id"]), text($0["kind"]), text($0["label"]), text($0["group"])] }
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let cells = row.enumerated().map { column, cell in
                column == 3 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            print(cells.joined(separator: "  "))
        }
        return 0
    }

    /// Prints the events of a successful reply as JSON lines, as sent; the server's message otherwise.
    static func report(_ reply: HTTPClient.Reply) -> Int32 {
        guard (200..<300).contains(reply.status) else {
            let hint = reply.status == 401 ? "; give a token with --token T or BUTTOND_TOKEN" : ""
            if case .string(let message)? = reply.json["error"]?["message"] {
                return fail("\(message) (HTTP \(reply.status))\(hint)")
            }
            return fail("the server answered HTTP \(reply.status)\(hint)")
        }
        for event in JSONSlices.elements(of: "events", in: reply.body) ?? [] {
            writeAll(1, Array(event) + [UInt8(ascii: "\n")])
        }
        return 0
    }
}
