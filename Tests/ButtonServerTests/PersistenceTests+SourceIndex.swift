import ButtonStore
import CSQLite
import Foundation
import TestSupport
import Testing

/// The source index is written every `retention / 10` events, not by every commit: a crash
/// between two of those writes leaves a tail of events only the log holds, and filtered
/// history must still be complete, before and after the restart.
extension PersistenceTests {
    /// An integer from the database in `dataDir`, read beside (or after) the server.
    static func scalar(_ sql: String, in dataDir: String) -> Int64? {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(dataDir + "/" + ButtonStore.fileName, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return nil }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return sqlite3_column_int64(statement, 0)
    }

    static func seqs(_ server: ServerProcess, _ query: String) throws -> [Int64] {
        try server.client.get("/api/v1/events?\(query)").json["events"]!.array.compactMap { $0["seq"]?.int }
    }

    @Test func filteredHistoryIsCompleteAfterAKillBetweenIndexWrites() throws {
        let dir = Self.tempDir()
        // Retention 300: the index is written (and the log trimmed) every 30 events.
        let first = try ServerProcess(dataDir: dir, arguments: ["--retention", "300"])
        for id in ["a", "b"] {
            #expect(try first.client.request("POST", "/api/v1/buttons", json: "{\"id\": \"\(id)\", \"maxTaps\": 1}").status == 201)
        }
        for i in 0..<137 {
            #expect(try first.client.request("POST", "/api/v1/buttons/\(i % 3 == 0 ? "b" : "a")/press", json: "{}").status == 200)
        }
        let all = try first.client.get("/api/v1/events?after=0&limit=1000").json["events"]!.array
        let ofA = all.filter { $0["button"]?.string == "a" }.compactMap { $0["seq"]?.int }
        let ofB = all.filter { $0["button"]?.string == "b" }.compactMap { $0["seq"]?.int }
        #expect(ofA.count > 100 && ofB.count > 50)
        #expect(try Self.seqs(first, "after=0&limit=1000&button=a") == ofA)
        first.stop(SIGKILL)

        // Killed between two index writes: the newest events are in the log only.
        let newest = Self.scalar("SELECT MAX(seq) FROM events", in: dir) ?? 0
        let through = Self.scalar("SELECT value FROM meta WHERE key = 'sources_through'", in: dir) ?? 0
        #expect(newest == all.last?["seq"]?.int)
        #expect(through < newest, "the kill must leave a tail: indexed through \(through) of \(newest)")
        #expect(Self.scalar("SELECT COUNT(*) FROM event_sources WHERE seq > \(through)", in: dir) == 0)
        // Retention trimmed the oldest events and their entries.
        #expect(all.count <= 330)
        #expect(Self.scalar("SELECT COUNT(*) FROM event_sources WHERE seq < \(all.first?["seq"]?.int ?? 0)", in: dir) == 0)

        let second = try ServerProcess(dataDir: dir, arguments: ["--retention", "300"])
        defer { second.stop() }
        #expect(Self.scalar("SELECT value FROM meta WHERE key = 'sources_through'", in: dir) == newest)
        #expect(try Self.seqs(second, "after=0&limit=1000&button=a") == ofA)
        #expect(try Self.seqs(second, "after=0&limit=1000&button=b") == ofB)
        #expect(try Self.seqs(second, "limit=7&button=a") == Array(ofA.suffix(7)))
        #expect(try Self.seqs(second, "after=\(ofB[ofB.count / 2])&limit=5&button=b") == Array(ofB.drop { $0 <= ofB[ofB.count / 2] }.prefix(5)))
        // And it goes on: a press after the restart is in its button's page.
        let press = try second.client.request("POST", "/api/v1/buttons/b/press", json: "{}").json["events"]!.array
        #expect(try Self.seqs(second, "after=\(newest)&button=b") == press.compactMap { $0["seq"]?.int })
    }
}
