/// Handlers: what runs when a button or sheet emits an event.
extension ButtonStore {
    /// Every handler, grouped by owner and in each owner's order.
    public func loadHandlers() throws(StoreError) -> [StoredHandler] {
        try withConnection { connection throws(StoreError) in
            try connection.statement(
                "SELECT id, owner, config, secret, enabled, position FROM handlers ORDER BY owner, position, id"
            ).rows(Self.handler)
        }
    }

    /// The handlers of one owner (`StoredHandler.owner(button:)`), in order.
    public func loadHandlers(owner: String) throws(StoreError) -> [StoredHandler] {
        try withConnection { connection throws(StoreError) in
            let select = try connection.statement(
                """
                SELECT id, owner, config, secret, enabled, position FROM handlers
                WHERE owner = ?1 ORDER BY position, id
                """)
            select.bind(owner, at: 1)
            return try select.rows(Self.handler)
        }
    }

    /// The position a new handler of `owner` should take to come last.
    public func nextHandlerPosition(owner: String) throws(StoreError) -> Int {
        try withConnection { connection throws(StoreError) in
            let select = try connection.statement(
                "SELECT COALESCE(MAX(position), -1) + 1 FROM handlers WHERE owner = ?1")
            select.bind(owner, at: 1)
            return Int(try select.scalar() ?? 0)
        }
    }

    /// Inserts a handler or replaces every field of an existing one.
    public func upsertHandler(_ handler: StoredHandler) throws(StoreError) {
        try withConnection { connection throws(StoreError) in
            try Self.upsertHandler(handler, in: connection)
        }
    }

    /// Deletes a handler and its whole delivery log.
    /// Returns whether it existed.
    @discardableResult
    public func deleteHandler(id: String) throws(StoreError) -> Bool {
        try withConnection { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                try Self.deleteHandler(id: id, in: connection)
            }
        }
    }

    static func upsertHandler(_ handler: StoredHandler, in connection: Connection) throws(StoreError) {
        let upsert = try connection.statement(
            """
            INSERT INTO handlers (id, owner, position, config, secret, enabled) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, position = excluded.position,
                config = excluded.config, secret = excluded.secret, enabled = excluded.enabled
            """)
        upsert.bind(handler.id, at: 1)
        upsert.bind(handler.owner, at: 2)
        upsert.bind(handler.position, at: 3)
        upsert.bind(handler.config, at: 4)
        upsert.bind(handler.secret, at: 5)
        upsert.bind(handler.enabled, at: 6)
        try upsert.run()
    }

    @discardableResult
    static func deleteHandler(id: String, in connection: Connection) throws(StoreError) -> Bool {
        try deleteDeliveries(handler: id, in: connection)
        let delete = try connection.statement("DELETE FROM handlers WHERE id = ?1")
        delete.bind(id, at: 1)
        try delete.run()
        return connection.changes > 0
    }

    static func deleteHandlers(owner: String, in connection: Connection) throws(StoreError) {
        let handlers = try connection.statement("SELECT id FROM handlers WHERE owner = ?1")
        handlers.bind(owner, at: 1)
        for id in try handlers.rows({ $0.text(0) }) { try deleteDeliveries(handler: id, in: connection) }
        let delete = try connection.statement("DELETE FROM handlers WHERE owner = ?1")
        delete.bind(owner, at: 1)
        try delete.run()
    }

    static func handler(_ row: Statement) -> StoredHandler {
        StoredHandler(
            id: row.text(0), owner: row.text(1), config: row.text(2), secret: row.optionalText(3),
            enabled: row.bool(4), position: row.int(5))
    }
}
