import Handlers
import Foundation
import ButtonStore
import Config
import MicroHTTP
import Testing
import TestSupport

@testable import ButtonServer
@testable import Buttons

/// Seeded random bytes and mutated JSON through the real parsing and validation paths and
/// the router: every outcome must be a response or a 4xx in the JSON error shape, never a crash.
@Suite("Random input through parsing, validation and routing")
struct RandomInputTests {
    static let seeds: [String] = [
        #"{"id": "door", "label": "Door", "kind": "toggle", "longPressMs": 500, "faces": [{"label": "a", "color": "teal"}, {"label": "b"}], "flip": {"transition": "curl-up", "curve": "linear", "durationMs": 200}, "order": 1, "group": "g"}"#,
        #"{"id": "s", "title": "T", "options": [{"id": "a", "label": "A", "destructive": true}], "cancelLabel": "No"}"#,
        #"{"on": ["tap", "long-press"], "enabled": true, "webhook": {"url": "http://127.0.0.1:1/x", "headers": {"X-A": "b"}, "timeoutMs": 1000, "maxAttempts": 3}}"#,
        #"{"buttons": [{"id": "a"}], "sheets": [], "handlers": [{"button": "a", "on": ["tap"], "webhook": {"url": "http://127.0.0.1/"}}]}"#,
    ]

    static func mutate(_ text: String, _ random: inout SplitMix64) -> [UInt8] {
        var bytes = Array(text.utf8)
        for _ in 0..<(1 + random.below(6)) {
            guard !bytes.isEmpty else { break }
            let at = random.below(bytes.count)
            switch random.below(5) {
            case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
            case 1: bytes.remove(at: at)
            case 2:
                let alphabet = Array("{}[]\",:0-9e.\\u\0\u{7f}".utf8)
                bytes.insert(alphabet[random.below(alphabet.count)], at: at)
            case 3: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + random.below(20))], at: at)
            default: bytes.removeSubrange(at..<min(bytes.count, at + random.below(10)))
            }
        }
        return bytes
    }

    /// What is wrong with `body` as SPEC §3's error shape, `{"error": {"code", "message", …}}`
    /// (nil when nothing is): one member, a snake_case code, a message, a string `field`.
    static func errorShapeProblem(_ body: [UInt8]) -> String? {
        guard case .object(let top)? = try? JSONParser.parse(body) else { return "not a JSON object" }
        guard top.count == 1, case .object(let error)? = top["error"] else { return "not {\"error\": {…}} alone" }
        guard case .string(let code)? = error["code"], !code.isEmpty,
            code.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F })
        else { return "no snake_case code" }
        guard case .string(let message)? = error["message"], !message.isEmpty else { return "no message" }
        if let field = error["field"], case .string = field {} else if error["field"] != nil { return "a field that is not a string" }
        return nil
    }

    /// Every error rendered a 4xx in the JSON error shape (an issue names the input otherwise).
    static func check(_ error: any Error, _ bytes: [UInt8], seed: UInt64) {
        guard let convertible = error as? any HTTPErrorConvertible else {
            Issue.record("seed \(seed): \(type(of: error)) has no HTTP rendering: \(error)")
            return
        }
        let response = convertible.httpError.response
        let input = String(decoding: bytes, as: UTF8.self)
        #expect((400..<500).contains(response.status), "seed \(seed): \(response.status) for \(input)")
        guard case .bytes(let body) = response.body else {
            Issue.record("seed \(seed): an error answer without a body")
            return
        }
        if let problem = errorShapeProblem(body) {
            Issue.record("seed \(seed): \(problem): \(String(decoding: body, as: UTF8.self)) for \(input)")
        }
    }

    /// A seed document changed as a value (a member dropped, added or given a value of another
    /// type or range), so it still parses and validation, not the parser, meets it.
    static func mutateValue(_ value: JSONValue, _ random: inout SplitMix64, depth: Int = 0) -> JSONValue {
        let odd: [JSONValue] = [
            .null, true, 0, -1, .int(.max), .double(1e300), .double(-0.5), "", "x", .string(String(repeating: "y", count: 300)), [], [:],
            ["id": "a"], [1, "two"],
        ]
        switch value {
        case .object(var members) where !members.isEmpty && depth < 4:
            let key = members.keys.sorted()[random.below(members.count)]
            switch random.below(4) {
            case 0: members[key] = nil
            case 1: members[key] = odd[random.below(odd.count)]
            case 2: members["unknown\(random.below(3))"] = odd[random.below(odd.count)]
            default: members[key] = mutateValue(members[key]!, &random, depth: depth + 1)
            }
            return .object(members)
        case .array(var elements) where !elements.isEmpty && depth < 4:
            let at = random.below(elements.count)
            elements[at] = random.chance(50) ? odd[random.below(odd.count)] : mutateValue(elements[at], &random, depth: depth + 1)
            if random.chance(20) { elements.append(elements[at]) }
            return .array(elements)
        default:
            return odd[random.below(odd.count)]
        }
    }

    @Test(arguments: 0..<8)
    func validationNeverCrashes(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let rounds = 2500
        var unparsed = 0
        for round in 0..<rounds {
            let seedText = Self.seeds[random.below(Self.seeds.count)]
            let bytes: [UInt8]
            switch round % 5 {
            case 0: bytes = (0..<random.below(64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            case 1, 2:
                var value = try! JSONParser.parse(Array(seedText.utf8))
                for _ in 0..<(1 + random.below(3)) { value = Self.mutateValue(value, &random) }
                bytes = JSONWriter.encode(value)
            default: bytes = Self.mutate(seedText, &random)
            }
            guard let json = try? JSONParser.parse(bytes) else {
                unparsed += 1  // the parser's own rejects are tested in JSONTests
                continue
            }
            do { _ = try ButtonDefinition.create(from: json, icons: []) } catch { Self.check(error, bytes, seed: seed) }
            do { _ = try SheetDefinition.create(from: json) } catch { Self.check(error, bytes, seed: seed) }
            do {
                _ = try Handler.create(from: json, owner: .button("a"), context: .init(scriptsDir: "/nonexistent"))
            } catch { Self.check(error, bytes, seed: seed) }
            do { _ = try RegistryConfig.parse(json, context: Handler.Context(scriptsDir: nil), icons: []) } catch { Self.check(error, bytes, seed: seed) }
        }
        // Most byte mutations break the JSON (about 8 % of those inputs parse); the value
        // mutations always parse, so at least two fifths of the inputs reach validation.
        #expect(rounds - unparsed >= rounds * 2 / 5, "seed \(seed): only \(rounds - unparsed) of \(rounds) inputs parsed")
    }

    @Test func routerAnswersRandomRequests() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "a"}"#)
        var random = SplitMix64(seed: 42)
        let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
        let segments = ["api", "v1", "buttons", "a", "down", "up", "sheets", "handlers", "events", "stream", "%2e%2e", "..", "x", "input", "config"]
        var errors = 0
        for _ in 0..<300 {
            let path = "/" + (0..<random.below(6)).map { _ in segments[random.below(segments.count)] }.joined(separator: "/")
            let body = Self.mutate(Self.seeds[random.below(Self.seeds.count)], &random)
            let method = methods[random.below(methods.count)]
            let reply = try server.client.request(method, path, body: body)
            #expect(reply.status < 500, "\(method) \(path)")
            guard (400..<500).contains(reply.status), method != "HEAD" else { continue }  // HEAD: no body to check
            errors += 1
            if let problem = Self.errorShapeProblem(reply.body) {
                Issue.record("\(method) \(path) → \(reply.status): \(problem): \(reply.text)")
            }
        }
        #expect(errors >= 100, "only \(errors) of 300 random requests were refused: the shape was hardly checked")
        #expect(try server.client.get("/healthz").status == 200)
    }
}
