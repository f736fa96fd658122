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

func deliveryRow(_ id: Int64, handler: String = "h1", eventSeq: Int64 = 1, nextAttemptAt: Int64 = 0) -> DeliveryRow {
    DeliveryRow(
        id: id, handler: handler, nextAttemptAt: nextAttemptAt, createdAt: 500,
        event: DeliveryEvent(
            seq: eventSeq, id: "evt_\(eventSeq)", type: "tap", button: "door", t: 400, face: eventSeq == 2 ? 1 : nil,
            json: Array(#"{"seq":\#(eventSeq)}"#.utf8)),
        body: id == 3 ? Array("shaped-\(id)".utf8) : nil)
}

func withTemporaryDirectoryAsync(_ body: (String) async throws -> Void) async throws {
    let base = FileManager.default.temporaryDirectory
        .appendingPathComponent("buttonstore-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: base) }
    try await body(base)
}
