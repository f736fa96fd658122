import ButtonEngine

/// The `handlers` table: every statement on it is here (its schema is a migration's), with its
/// column list written once, in `HandlerColumn`'s order. Deleting a handler deletes its delivery
/// log; deleting a button or sheet deletes its handlers.
extension ButtonStore {
    /// The table's columns in the order `load` selects and `upsert` binds them; a row is read
    /// and written by these names, never by a bare position.
    package enum HandlerColumn: Int32, CaseIterable {
        case id, owner, position, onEvents, option, enabled, ordered, kind, url, method, headers, body, name, args, timeoutMs
        case maxAttempts, expireAfterMs, secret

        /// The SQL name (`on_events` for `onEvents`).
        package var name: String {
            String(String(describing: self).flatMap { $0.isUppercase ? ["_", Character($0.lowercased())] : [$0] })
        }

        /// Its `?N` parameter in `upsert`.
        var parameter: Int32 { rawValue + 1 }
    }

    /// What `handlerRows` runs (its column list is `HandlerColumn`'s, which a test holds it to).
    package static let loadHandlersSQL: StaticString = """
        SELECT id, owner, position, on_events, option, enabled, ordered, kind, url, method, headers, body, name, args,
            timeout_ms, max_attempts, expire_after_ms, secret
        FROM handlers ORDER BY owner, position, id
        """

    /// What `upsertHandler` runs (its column list is `HandlerColumn`'s too).
    package static let upsertHandlerSQL: StaticString = """
        INSERT INTO handlers (id, owner, position, on_events, option, enabled, ordered, kind, url, method, headers, body, name, args,
            timeout_ms, max_attempts, expire_after_ms, secret)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)
        ON CONFLICT (id) DO UPDATE SET owner = ?2, position = ?3, on_events = ?4, option = ?5, enabled = ?6,
            ordered = ?7, kind = ?8, url = ?9, method = ?10, headers = ?11, body = ?12, name = ?13, args = ?14,
            timeout_ms = ?15, max_attempts = ?16, expire_after_ms = ?17, secret = ?18
        """

    /// Every handler, grouped by owner and in each owner's order; a row this build cannot
    /// read (an unknown owner) is left out.
    public func handlerRows() throws(StoreError) -> [HandlerRow] {
        try withConnection { connection throws(StoreError) in
            try connection.statement(Self.loadHandlersSQL).rows(Self.handlerRow).compactMap { $0 }
        }
    }

    /// The position a new handler of `owner` should take to come last.
    public func nextHandlerPosition(owner: Source) throws(StoreError) -> Int {
        try withConnection { connection throws(StoreError) in
            let select = try connection.statement("SELECT COALESCE(MAX(position), -1) + 1 FROM handlers WHERE owner = ?1")
            select.bind(owner.stored, at: 1)
            return Int(try select.scalar() ?? 0)
        }
    }

    /// Inserts a handler or replaces every field of an existing one.
    public func upsertHandler(_ handler: some HandlerRowConvertible) throws(StoreError) {
        try withConnection { connection throws(StoreError) in
            try Self.upsertHandler(handler.row, in: connection)
        }
    }

    /// Deletes a handler and its whole delivery log. Returns whether it existed.
    @discardableResult
    public func deleteHandler(id: String) throws(StoreError) -> Bool {
        try withConnection { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                try Self.deleteHandler(id: id, in: connection)
            }
        }
    }

    /// Makes the table hold exactly `handlers` (a config import): the others go with their
    /// delivery logs, listed ones are upserted as given.
    static func replaceHandlers(with handlers: [HandlerRow], in connection: Connection) throws(StoreError) {
        let kept = Set(handlers.map(\.id))
        for id in try ids(connection.statement("SELECT id FROM handlers")) where !kept.contains(id) {
            try deleteHandler(id: id, in: connection)
        }
        for handler in handlers { try upsertHandler(handler, in: connection) }
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

    static func upsertHandler(_ row: HandlerRow, in connection: Connection) throws(StoreError) {
        let upsert = try connection.statement(upsertHandlerSQL)
        func bind(_ value: String?, _ column: HandlerColumn) { upsert.bind(value, at: column.parameter) }
        func bind(_ value: Int64?, _ column: HandlerColumn) { upsert.bind(value, at: column.parameter) }
        func bind(_ value: Bool, _ column: HandlerColumn) { upsert.bind(value, at: column.parameter) }
        bind(row.id, .id)
        bind(row.owner.stored, .owner)
        bind(Int64(row.position), .position)
        bind(row.on.map(\.rawValue).joined(separator: " "), .onEvents)
        bind(row.option, .option)
        bind(row.enabled, .enabled)
        bind(row.ordered, .ordered)
        bind(row.kind, .kind)
        bind(row.url, .url)
        bind(row.method, .method)
        bind(row.headers, .headers)
        bind(row.body, .body)
        bind(row.name, .name)
        bind(row.args, .args)
        bind(row.timeoutMs, .timeoutMs)
        bind(row.maxAttempts, .maxAttempts)
        bind(row.expireAfterMs, .expireAfterMs)
        bind(row.secret, .secret)
        try upsert.run()
    }

    /// A row of `loadHandlersSQL`; nil for one this build cannot read (an unknown owner).
    static func handlerRow(_ row: Statement) -> HandlerRow? {
        func text(_ column: HandlerColumn) -> String { row.text(column.rawValue) }
        func optionalText(_ column: HandlerColumn) -> String? { row.optionalText(column.rawValue) }
        guard let owner = Source(stored: text(.owner)) else { return nil }
        return HandlerRow(
            id: text(.id), owner: owner, position: row.int(HandlerColumn.position.rawValue),
            on: text(.onEvents).split(separator: " ").compactMap { EventType(rawValue: String($0)) },
            option: optionalText(.option), enabled: row.bool(HandlerColumn.enabled.rawValue),
            ordered: row.bool(HandlerColumn.ordered.rawValue), kind: text(.kind), url: optionalText(.url),
            method: optionalText(.method), headers: optionalText(.headers), body: optionalText(.body), name: optionalText(.name),
            args: optionalText(.args), timeoutMs: row.int64(HandlerColumn.timeoutMs.rawValue),
            maxAttempts: row.int64(HandlerColumn.maxAttempts.rawValue),
            expireAfterMs: row.optionalInt64(HandlerColumn.expireAfterMs.rawValue), secret: optionalText(.secret))
    }
}
