import Delivery
import Handlers
import Outbox
import ButtonEngine
import ButtonStore
import JSON
import Foundation

/// A fresh directory under the system temp dir, removed when the test body returns.
func withTemporaryDirectory<R>(_ body: (String) throws -> R) throws -> R {
    let base = FileManager.default.temporaryDirectory
        .appendingPathComponent("buttonstore-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: base) }
    return try body(base)
}

/// Opens a store in a fresh temporary data directory.
func withStore<R>(_ body: (ButtonStore, String) throws -> R) throws -> R {
    try withTemporaryDirectory { base in
        let directory = base + "/data"
        let store = try ButtonStore(directory: directory, clock: .system)
        defer { store.close() }
        return try body(store, directory)
    }
}

func event(
    _ seq: Int64, button: String? = "door", sheet: String? = nil, type: String = "tap", t: Int64 = 1_000
) -> StoredEvent {
    StoredEvent(
        seq: seq, id: "evt_\(seq)", type: type, button: button, sheet: sheet, t: t,
        json: Array(#"{"seq":\#(seq),"type":"\#(type)"}"#.utf8))
}

func deliveryRow(_ id: Int64, handler: String = "h1", eventSeq: Int64 = 1, nextAttemptAt: Int64 = 0) -> DeliveryRow {
    DeliveryRow(
        id: id, handler: handler, nextAttemptAt: nextAttemptAt, createdAt: 500,
        event: DeliveryEvent(
            seq: eventSeq, id: "evt_\(eventSeq)", type: .tap, source: .button("door"), t: 400, face: eventSeq == 2 ? 1 : nil,
            json: Array(#"{"seq":\#(eventSeq)}"#.utf8)),
        body: id == 3 ? Array("shaped-\(id)".utf8) : nil)
}

/// A handler as the store keeps it: a webhook (a script with `script`) owned by `owner`
/// (`"button:door"`), on `tap`.
func storedHandler(
    _ id: String, owner: String, secret: String? = nil, enabled: Bool = true, position: Int = 0, script: Bool = false
) -> StoredHandler {
    var hook = WebhookAction(url: "http://127.0.0.1:9/\(id)")
    hook.headers = ["X-Id": id]
    hook.body = ["handler": .string(id), "event": "{event}"]
    var run = ScriptAction(name: "\(id).sh")
    run.args = ["{button}", id]
    let handler = Handler(
        id: id, owner: Source(stored: owner)!, on: [.tap, .longPress], option: owner.hasPrefix("sheet:") ? "go" : nil,
        enabled: enabled, ordered: position % 2 == 0, action: script ? .script(run) : .webhook(hook), maxAttempts: 3,
        expireAfterMs: script ? nil : 60_000)
    return StoredHandler(handler, position: position, secret: secret)
}

func withTemporaryDirectoryAsync(_ body: (String) async throws -> Void) async throws {
    let base = FileManager.default.temporaryDirectory
        .appendingPathComponent("buttonstore-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: base) }
    try await body(base)
}
