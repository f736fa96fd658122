import ButtonStore
import CSQLite
import Foundation
import TestSupport
import Testing

/// A damaged data directory is a clean start error (exit 1) that says where the damage is,
/// never a server that starts and then answers 503.
extension PersistenceTests {
    /// Runs `sql` on the stopped server's database, as a person with `sqlite3` would.
    static func execute(_ sql: String, in dataDir: String) {
        var db: OpaquePointer?
        #expect(sqlite3_open(dataDir + "/" + ButtonStore.fileName, &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        #expect(sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK)
    }

    @Test func damagedPagesRefuseToStartPointingToButtondCheck() throws {
        let dir = Self.tempDir()
        try TestServer(dataDir: dir).stop()
        // 20 000 events of 50 buttons: a file of some hundred pages, stopped cleanly.
        Self.execute(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
            INSERT INTO events (seq, id, type, button, t, json)
            SELECT i, 'evt_' || i, 'tap', 'b' || (i % 50), 1795954800000 + i, json_object('seq', i, 'type', 'tap') FROM n
            """, in: dir)
        #expect(overwriteMiddlePage(of: dir + "/" + ButtonStore.fileName) > 100)
        let (code, _, stderr) = try runButtond(["serve", "--port", "0", "--data-dir", dir])
        #expect(code == 1)
        #expect(stderr.contains("is damaged"), "\(stderr)")
        #expect(stderr.contains("`buttond check --data-dir \(dir)`"), "\(stderr)")
        let (checked, _, _) = try runButtond(["check", "--data-dir", dir])
        #expect(checked == 1)
    }

    @Test func aRowWithGarbageJSONNamesItsTableAndRow() throws {
        let dir = Self.tempDir()
        do {
            let server = try TestServer(dataDir: dir)
            try server.createButton(#"{"id": "door"}"#)
            try server.createButton(#"{"id": "lamp"}"#)
            #expect(try server.post("/api/v1/sheets", #"{"id": "panel", "title": "Panel", "options": [{"id": "go", "label": "Go"}]}"#).status == 201)
            server.stop()
        }
        Self.execute("UPDATE buttons SET config = '#garbage' WHERE id = 'door'", in: dir)
        var (code, _, stderr) = try runButtond(["serve", "--port", "0", "--data-dir", dir])
        #expect(code == 1)
        #expect(stderr.contains("buttons row 'door': malformed JSON at byte 0 of config"), "\(stderr)")
        // Valid JSON that is not a definition names the row too.
        Self.execute(
            #"UPDATE buttons SET config = (SELECT REPLACE(config, '"lamp"', '"door"') FROM buttons WHERE id = 'lamp') "#
                + #"WHERE id = 'door'; "#
                + #"UPDATE sheets SET config = '{"id": "panel", "options": 7}' WHERE id = 'panel'"#, in: dir)
        (code, _, stderr) = try runButtond(["serve", "--port", "0", "--data-dir", dir])
        #expect(code == 1)
        #expect(stderr.contains("sheets row 'panel': config: "), "\(stderr)")
    }
}
