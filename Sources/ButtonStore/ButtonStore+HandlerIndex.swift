import Outbox

/// The handler index of the delivery log (`delivery_handlers`): (handler, id) of every
/// delivery through `meta.handlers_through`, written in bulk with the source index rather than
/// in every commit. An index keyed by handler takes each delivery at its handler's place, so a
/// commit that delivered to several handlers dirtied an index page for each; a bulk write of
/// many commits' deliveries dirties each page once. The deliveries after it are found by
/// walking the log's tail, so what is not indexed yet (after a crash too) is still read from
/// the deliveries themselves.
extension ButtonStore {
    /// The delivery id through which `delivery_handlers` is written (deliveries after it are
    /// the tail).
    static let handlersThrough: StaticString =
        "SELECT COALESCE((SELECT value FROM meta WHERE key = 'handlers_through'), 0)"

    /// Indexes every delivery not yet in the handler index, in a transaction of its own: at
    /// open, so the tail left by a stop or a crash does not add to the next one's.
    public func indexDeliveryHandlers() throws(StoreError) {
        try withConnection { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) in try Self.indexHandlers(connection) }
        }
    }

    /// Inside the caller's transaction: the index gains the deliveries after its extent, which
    /// moves to the newest delivery.
    static func indexHandlers(_ connection: Connection) throws(StoreError) {
        let through = try connection.statement(handlersThrough).scalar() ?? 0
        // OR IGNORE: a delivery inserted outside an event commit indexed itself already.
        let insert = try connection.statement(
            "INSERT OR IGNORE INTO delivery_handlers (handler, id) SELECT handler, id FROM deliveries WHERE id > ?1")
        insert.bind(through, at: 1)
        try insert.run()
        let extend = try connection.statement(
            """
            INSERT INTO meta (key, value) VALUES ('handlers_through', (SELECT COALESCE(MAX(id), ?1) FROM deliveries))
            ON CONFLICT (key) DO UPDATE SET value = MAX(value, excluded.value)
            """)
        extend.bind(through, at: 1)
        try extend.run()
    }

    /// Inside the caller's transaction: `rows`, inserted outside an event commit, index
    /// themselves. An id is taken before its transaction begins, so a bulk write in between
    /// may already have moved the extent past it: a row that waited for the next one would be
    /// in neither the index nor the tail.
    static func indexHandlers(of rows: [DeliveryRow], in connection: Connection) throws(StoreError) {
        let insert = try connection.statement("INSERT OR IGNORE INTO delivery_handlers (handler, id) VALUES (?1, ?2)")
        for row in rows {
            insert.bind(row.handler, at: 1)
            insert.bind(row.id, at: 2)
            try insert.run()
        }
    }

    /// A handler's deliveries after the index's extent, newest first: a walk of the log's
    /// tail. ?1 the extent, ?2 the id they are older than, ?3 the handler, ?4 the limit, ?5 a
    /// stored status or NULL (`+status`: the status index must not be taken for the walk).
    static let handlerTail: StaticString = """
        SELECT * FROM delivery_rows WHERE id > ?1 AND id < ?2 AND handler = ?3 AND (?5 IS NULL OR +status = ?5)
        ORDER BY id DESC LIMIT ?4
        """

    /// A handler's deliveries through the index's extent, newest first: a seek of its entries.
    /// The parameters are `handlerTail`'s.
    static let handlerIndexed: StaticString = """
        SELECT r.* FROM delivery_handlers h CROSS JOIN delivery_rows r ON r.id = h.id
        WHERE h.handler = ?3 AND h.id <= ?1 AND h.id < ?2 AND (?5 IS NULL OR +r.status = ?5)
        ORDER BY h.id DESC LIMIT ?4
        """

    /// `handler`'s deliveries newest first, older than `before`, of one stored `status` if
    /// given, up to `limit`, in one snapshot: the tail after the index's extent (a walk of the
    /// log's newest rows), then the index's entries through it.
    static func deliveries(
        handler: String, status: DeliveryStatus?, before: Int64, limit: Int, in connection: Connection
    ) throws(StoreError) -> [DeliveryRow] {
        try connection.reading { () throws(StoreError) in
            let through = try connection.statement(handlersThrough).scalar() ?? 0
            var rows: [DeliveryRow] = []
            for statement in [try connection.statement(handlerTail), try connection.statement(handlerIndexed)]
            where rows.count < limit {
                statement.bind(through, at: 1)
                statement.bind(before, at: 2)
                statement.bind(handler, at: 3)
                statement.bind(limit - rows.count, at: 4)
                statement.bind(status?.rawValue, at: 5)
                rows += try statement.rows(deliveryRow)
            }
            return rows
        }
    }
}
