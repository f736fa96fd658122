import ButtonEngine

/// The migrations whose work SQL cannot do alone: run after their SQL, in its transaction.
extension Schema {
    /// Work of a migration that SQL cannot do, run in its transaction after its SQL, by the
    /// version it brings the schema to.
    static func afterSQL(_ version: Int, _ connection: Connection) throws(StoreError) {
        if version == 15 { try compactEvents(connection) }
    }

    /// Version 15's second half: every row that still keeps its JSON and whose JSON `EventJSON`
    /// renders exactly from the row's columns and the data object and sender it holds keeps
    /// those instead. A row it would render differently (an older shape, damage) keeps its JSON.
    static func compactEvents(_ connection: Connection) throws(StoreError) {
        let select = try connection.statement(
            "SELECT seq, id, type, button, sheet, t, json FROM events WHERE json IS NOT NULL AND seq > ?1 ORDER BY seq LIMIT 1000")
        let update = try connection.statement("UPDATE events SET data = ?2, by = ?3, json = NULL WHERE seq = ?1")
        var after: Int64 = .min
        while true {
            select.bind(after, at: 1)
            let rows = try select.rows { row in
                (seq: row.int64(0), id: row.text(1), type: row.text(2), button: row.optionalText(3),
                 sheet: row.optionalText(4), t: row.int64(5), json: row.blob(6))
            }
            guard let last = rows.last else { return }
            after = last.seq
            for row in rows {
                guard
                    let parts = EventJSON.parts(
                        of: row.json, id: row.id, seq: row.seq, type: row.type, button: row.button, sheet: row.sheet, t: row.t)
                else { continue }
                update.bind(row.seq, at: 1)
                update.bind(parts.data, at: 2)
                update.bind(parts.by, at: 3)
                try update.run()
            }
        }
    }
}
