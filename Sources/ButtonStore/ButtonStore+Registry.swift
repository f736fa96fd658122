import ButtonEngine
/// Buttons and sheets: the registry the server loads at start and edits through the API.
extension ButtonStore {
    /// Every button, in insertion order.
    public func loadButtons() throws(StoreError) -> [StoredButton] {
        try withConnection { connection throws(StoreError) in
            try connection.statement(
                """
                SELECT b.id, b.config, COALESCE(s.face, 0), s.clock, COALESCE(s.held, 0), b.position, COALESCE(s.taps, 0),
                    s.armed_until
                FROM buttons b LEFT JOIN button_states s ON s.id = b.id ORDER BY b.position, b.id
                """
            ).rows { row in
                StoredButton(
                    id: row.text(0), config: row.text(1), face: row.int(2), clock: row.optionalInt64(3),
                    held: row.bool(4), position: row.int(5), tapCount: row.int(6), armedUntil: row.optionalInt64(7))
            }
        }
    }

    /// Inserts a button (last position, face 0, not held, no clock) or replaces only its config.
    public func upsertButton(id: String, config: String) throws(StoreError) {
        try upsert(
            """
            INSERT INTO buttons (id, position, config, face, clock, held)
            VALUES (?1, (SELECT COALESCE(MAX(position), -1) + 1 FROM buttons), ?2, 0, NULL, 0)
            ON CONFLICT (id) DO UPDATE SET config = excluded.config
            """, id: id, config: config, state: true)
    }

    /// Runs one of the registry's insert-or-replace-config statements; with `state`, also
    /// gives a new button its state row, in the same transaction.
    private func upsert(_ sql: StaticString, id: String, config: String, state: Bool = false) throws(StoreError) {
        try withConnection { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                let insert = try connection.statement(sql)
                insert.bind(id, at: 1)
                insert.bind(config, at: 2)
                try insert.run()
                if state { try Self.addState(id: id, in: connection) }
            }
        }
    }

    private static func addState(id: String, in connection: Connection) throws(StoreError) {
        let insert = try connection.statement("INSERT OR IGNORE INTO button_states (id) VALUES (?1)")
        insert.bind(id, at: 1)
        try insert.run()
    }

    private static func deleteState(id: String, in connection: Connection) throws(StoreError) {
        let delete = try connection.statement("DELETE FROM button_states WHERE id = ?1")
        delete.bind(id, at: 1)
        try delete.run()
    }

    /// Deletes a button with its handlers and their delivery logs. Returns whether it existed.
    @discardableResult
    public func deleteButton(id: String) throws(StoreError) -> Bool {
        try delete("DELETE FROM buttons WHERE id = ?1", id: id, owner: Source.button(id).stored, state: true)
    }

    /// Deletes one registry row and its handlers (and a button's state) in one transaction.
    private func delete(_ sql: StaticString, id: String, owner: String, state: Bool = false) throws(StoreError) -> Bool {
        try withConnection { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                try Self.deleteHandlers(owner: owner, in: connection)
                if state { try Self.deleteState(id: id, in: connection) }
                let delete = try connection.statement(sql)
                delete.bind(id, at: 1)
                try delete.run()
                return connection.changes > 0
            }
        }
    }

    /// Every sheet, in insertion order.
    public func loadSheets() throws(StoreError) -> [StoredSheet] {
        try withConnection { connection throws(StoreError) in
            try connection.statement("SELECT id, config, position FROM sheets ORDER BY position, id").rows { row in
                StoredSheet(id: row.text(0), config: row.text(1), position: row.int(2))
            }
        }
    }

    /// Inserts a sheet at the last position, or replaces only its config.
    public func upsertSheet(id: String, config: String) throws(StoreError) {
        try upsert(
            """
            INSERT INTO sheets (id, position, config)
            VALUES (?1, (SELECT COALESCE(MAX(position), -1) + 1 FROM sheets), ?2)
            ON CONFLICT (id) DO UPDATE SET config = excluded.config
            """, id: id, config: config)
    }

    /// Deletes a sheet with its handlers and their delivery logs. Returns whether it existed.
    @discardableResult
    public func deleteSheet(id: String) throws(StoreError) -> Bool {
        try delete("DELETE FROM sheets WHERE id = ?1", id: id, owner: Source.sheet(id).stored)
    }

    /// The statements that replace one table of the registry (buttons or sheets).
    private struct TableSQL {
        var select: StaticString
        var delete: StaticString
        /// Insert (id, position, config); on conflict, update config and position only.
        var upsert: StaticString
    }

    private static let buttonSQL = TableSQL(
        select: "SELECT id FROM buttons", delete: "DELETE FROM buttons WHERE id = ?1",
        upsert: """
            INSERT INTO buttons (id, position, config, face, clock, held) VALUES (?1, ?2, ?3, 0, NULL, 0)
            ON CONFLICT (id) DO UPDATE SET config = excluded.config, position = excluded.position
            """)
    private static let sheetSQL = TableSQL(
        select: "SELECT id FROM sheets", delete: "DELETE FROM sheets WHERE id = ?1",
        upsert: """
            INSERT INTO sheets (id, position, config) VALUES (?1, ?2, ?3)
            ON CONFLICT (id) DO UPDATE SET config = excluded.config, position = excluded.position
            """)

    /// Makes a table (buttons or sheets) hold exactly `rows`, in their order: the others are
    /// deleted (`dropping` first clears what hangs off them), listed ones take their config and
    /// position and keep the rest.
    private static func replace(
        _ sql: TableSQL, with rows: [(id: String, config: String)], in connection: Connection,
        dropping: (String) throws(StoreError) -> Void, added: (String) throws(StoreError) -> Void
    ) throws(StoreError) {
        let kept = Set(rows.map(\.id))
        for id in try ids(connection.statement(sql.select)) where !kept.contains(id) {
            try dropping(id)
            let delete = try connection.statement(sql.delete)
            delete.bind(id, at: 1)
            try delete.run()
        }
        let upsert = try connection.statement(sql.upsert)
        for (position, row) in rows.enumerated() {
            upsert.bind(row.id, at: 1)
            upsert.bind(position, at: 2)
            upsert.bind(row.config, at: 3)
            try upsert.run()
            try added(row.id)
        }
    }

    /// Replaces the whole registry (config import) in one transaction.
    ///
    /// Buttons and sheets not listed are deleted with their handlers; listed ones take the
    /// list's order and config, and existing ones keep their live state (face, clock, held).
    /// The handler set becomes `handlers`: unlisted ones are deleted with their delivery logs,
    /// listed ones upserted as given.
    public func replaceRegistry(
        buttons: [(id: String, config: String)], sheets: [(id: String, config: String)], handlers: [some HandlerRowConvertible]
    ) throws(StoreError) {
        try withConnection { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                try Self.replace(
                    Self.buttonSQL, with: buttons, in: connection,
                    dropping: { id throws(StoreError) in
                        try Self.deleteHandlers(owner: Source.button(id).stored, in: connection)
                        try Self.deleteState(id: id, in: connection)
                    },
                    added: { id throws(StoreError) in try Self.addState(id: id, in: connection) })
                try Self.replace(
                    Self.sheetSQL, with: sheets, in: connection,
                    dropping: { id throws(StoreError) in try Self.deleteHandlers(owner: Source.sheet(id).stored, in: connection) },
                    added: { _ in })
                try Self.replaceHandlers(with: handlers.map(\.row), in: connection)
            }
        }
    }

    static func ids(_ statement: Statement) throws(StoreError) -> [String] {
        try statement.rows { row in row.text(0) }
    }
}
