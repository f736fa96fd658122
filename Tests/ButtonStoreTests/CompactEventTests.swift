import ButtonEngine
import Foundation
import JSON
import Testing

@testable import ButtonStore

/// Version 15's compact event rows: what an event is, once, and its JSON rendered on read,
/// byte for byte what was first sent and what rows written before it held.
@Suite struct CompactEventTests {
    /// Rows as buttond wrote them before version 15 (the JSON of every shape a press, a toggle,
    /// a sheet and a named token's input gave, and two it never wrote): after the upgrade every
    /// one reads back byte-identical, and only the two that `EventJSON` would not reproduce
    /// still keep their JSON.
    @Test func oldRowsMigrateAndRenderIdentically() throws {
        let old: [(seq: Int64, id: String, type: String, button: String?, sheet: String?, t: Int64, json: String)] = [
            (1, "evt_k3j9x0aa_1", "touch-down", "door", nil, 1_795_954_800_500,
             #"{"id":"evt_k3j9x0aa_1","seq":1,"type":"touch-down","button":"door","t":1795954800500,"at":"2026-11-29T12:20:00.500Z","data":{}}"#),
            (2, "evt_k3j9x0aa_2", "touch-up-inside", "door", nil, 1_795_954_801_234,
             #"{"id":"evt_k3j9x0aa_2","seq":2,"type":"touch-up-inside","button":"door","t":1795954801234,"at":"2026-11-29T12:20:01.234Z","data":{"durationMs":734}}"#),
            (3, "evt_k3j9x0aa_3", "tap", "door", nil, 1_795_954_801_234,
             #"{"id":"evt_k3j9x0aa_3","seq":3,"type":"tap","button":"door","t":1795954801234,"at":"2026-11-29T12:20:01.234Z","data":{"tapCount":1},"by":"kiosk-1"}"#),
            (4, "evt_k3j9x0aa_4", "flip", "lamp", nil, 1_795_954_802_999,
             #"{"id":"evt_k3j9x0aa_4","seq":4,"type":"flip","button":"lamp","t":1795954802999,"at":"2026-11-29T12:20:02.999Z","data":{"face":1,"previousFace":0}}"#),
            (5, "evt_k3j9x0aa_5", "select", nil, "menu", 1_795_954_802_999,
             #"{"id":"evt_k3j9x0aa_5","seq":5,"type":"select","sheet":"menu","t":1795954802999,"at":"2026-11-29T12:20:02.999Z","data":{"option":"caf\u00e9 \"b\"","index":2},"by":"osc"}"#),
            (6, "evt_0000test_6", "touch-down", "door", nil, 1_795_954_802_999,
             #"{"id":"evt_0000test_6","seq":6,"type":"touch-down","button":"door","t":1795954802999,"at":"2026-11-29T12:20:02.999Z","data":{"pointer":"7"}}"#),
            // Not what EventJSON writes: an older shape without `at`, and a damaged row.
            (7, "evt_7", "tap", "door", nil, 1000, #"{"id":"evt_7","seq":7,"type":"tap","button":"door","t":1000,"data":{}}"#),
            (8, "evt_8", "tap", "door", nil, 1000, "{}"),
        ]
        try withTemporaryDirectory { base in
            func quoted(_ text: String?) -> String { text.map { "'\($0)'" } ?? "NULL" }  // none holds a '
            let rows = old.map { row in
                "(\(row.seq), \(quoted(row.id)), \(quoted(row.type)), \(quoted(row.button)), \(quoted(row.sheet)), "
                    + "\(row.t), CAST(\(quoted(row.json)) AS BLOB))"
            }
            try makeOldDatabase(
                in: base, version: 14,
                filling: "INSERT INTO events (seq, id, type, button, sheet, t, json) VALUES " + rows.joined(separator: ", "))
            let store = try ButtonStore(directory: base, clock: .system)
            defer { store.close() }
            #expect(try store.userVersion() == ButtonStore.schemaVersion)
            let read = try store.events(after: 0, limit: 100, button: nil)
            #expect(read.map { String(decoding: $0.json, as: UTF8.self) } == old.map(\.json))
            #expect(read.map(\.id) == old.map(\.id))
            #expect(try store.events(after: 4, limit: 100, button: "menu").map(\.json) == [Array(old[4].json.utf8)])
            #expect(try store.latestEvents(limit: 3, button: "door").map(\.seq) == [6, 7, 8])
            let kept = try store.withReader { connection throws(StoreError) in
                try connection.statement("SELECT seq FROM events WHERE json IS NOT NULL ORDER BY seq").rows { $0.int64(0) }
            }
            #expect(kept == [7, 8])
            let parts = try store.withReader { connection throws(StoreError) in
                try connection.statement("SELECT CAST(data AS TEXT), by FROM events WHERE seq IN (1, 3, 5) ORDER BY seq")
                    .rows { "\($0.optionalText(0) ?? "NULL") \($0.optionalText(1) ?? "NULL")" }
            }
            #expect(parts == ["NULL NULL", #"{"tapCount":1} kiosk-1"#, #"{"option":"caf\u00e9 \"b\"","index":2} osc"#])
        }
    }

    /// A row written compact keeps no JSON and no id; it reads back as the JSON the event had,
    /// with the id its run's prefix gives, across runs and after the oldest run is trimmed away.
    @Test func compactRowsRenderTheirJSONAndIDOnRead() throws {
        try withStore { store, _ throws in
            func compact(_ seq: Int64, prefix: String, type: String, data: String, by: String? = nil) -> StoredEvent {
                let id = prefix + String(seq, radix: 36)
                let json = EventJSON.render(
                    id: id, seq: seq, type: type, button: "door", sheet: nil, t: 1_795_954_800_000 + seq,
                    data: Array(data.utf8), by: by)
                let tail = by.map { 6 + JSONWriter.encode(.string($0)).count } ?? 0
                let end = json.count - 1 - tail
                return StoredEvent(
                    seq: seq, id: id, type: type, button: "door", t: 1_795_954_800_000 + seq, json: json,
                    compact: StoredEvent.Compact(data: (end - data.utf8.count)..<end, by: by, derivedID: true))
            }
            try store.beginEventRun(firstSeq: 1, prefix: "evt_aaaaaaaa_")
            let first = [
                compact(1, prefix: "evt_aaaaaaaa_", type: "touch-down", data: "{}"),
                compact(2, prefix: "evt_aaaaaaaa_", type: "tap", data: #"{"tapCount":1}"#, by: "kiosk"),
            ]
            try store.commit(events: first, states: [], deliveries: [])
            try store.beginEventRun(firstSeq: 3, prefix: "evt_bbbbbbbb_")
            let second = (3...40).map { compact(Int64($0), prefix: "evt_bbbbbbbb_", type: "tap", data: #"{"tapCount":2}"#) }
            try store.commit(events: second, states: [], deliveries: [])
            let all = first + second
            #expect(try store.events(after: 0, limit: 100, button: nil) == all)
            #expect(try store.latestEvents(limit: 100, button: "door") == all)
            let stored = try store.withReader { connection throws(StoreError) in
                try connection.statement("SELECT COUNT(*) FROM events WHERE json IS NULL AND id IS NULL").scalar()
            }
            #expect(stored == 40)
            try store.trimEvents(keep: 10)
            #expect(try store.events(after: 0, limit: 100, button: nil) == Array(all.suffix(10)))
            let runs = try store.withReader { connection throws(StoreError) in
                try connection.statement("SELECT prefix FROM event_runs").rows { $0.text(0) }
            }
            #expect(runs == ["evt_bbbbbbbb_"])
        }
    }
}
