import Foundation
import ButtonStore
import MicroHTTP
import Testing
import TestSupport

@testable import ButtonServer
@testable import Buttons

/// Seeded random bytes and mutated JSON through the real parsing and validation paths and
/// the router: every outcome must be a response or an error rendered below 500, never a crash.
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

    @Test(arguments: 0..<8)
    func validationNeverCrashes(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for round in 0..<2500 {
            let bytes = round % 5 == 0
                ? (0..<random.below(64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                : Self.mutate(Self.seeds[random.below(Self.seeds.count)], &random)
            guard let json = try? JSONParser.parse(bytes) else { continue }
            do { _ = try ButtonDefinition.create(from: json) } catch { #expect(error.httpError.status < 500) }
            do { _ = try SheetDefinition.create(from: json) } catch { #expect(error.httpError.status < 500) }
            do {
                _ = try Handler.create(from: json, owner: .button("a"), context: .init(scriptsDir: "/nonexistent"))
            } catch { #expect(error.httpError.status < 500) }
            do { _ = try RegistryConfig.parse(json, scriptsDir: nil) } catch { #expect(error.httpError.status < 500) }
        }
    }

    @Test func routerAnswersRandomRequests() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "a"}"#)
        var random = SplitMix64(seed: 42)
        let methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
        let segments = ["api", "v1", "buttons", "a", "down", "up", "sheets", "handlers", "events", "stream", "%2e%2e", "..", "x", "input", "config"]
        for _ in 0..<300 {
            let path = "/" + (0..<random.below(6)).map { _ in segments[random.below(segments.count)] }.joined(separator: "/")
            let body = Self.mutate(Self.seeds[random.below(Self.seeds.count)], &random)
            let reply = try server.client.request(methods[random.below(methods.count)], path, body: body)
            #expect(reply.status < 500, "\(path)")
        }
        #expect(try server.client.get("/healthz").status == 200)
    }
}
