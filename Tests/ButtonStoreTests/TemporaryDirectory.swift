import ButtonStore
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
        let store = try ButtonStore(directory: directory)
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

func outboxRow(_ id: String, handler: String = "h1", eventSeq: Int64 = 1, nextAttemptAt: Int64 = 0) -> OutboxRow {
    OutboxRow(
        id: id, handler: handler, eventSeq: eventSeq, body: Array("body-\(id)".utf8), nextAttemptAt: nextAttemptAt,
        createdAt: 500)
}

func withTemporaryDirectoryAsync(_ body: (String) async throws -> Void) async throws {
    let base = FileManager.default.temporaryDirectory
        .appendingPathComponent("buttonstore-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: base) }
    try await body(base)
}
