import Outbox

/// The handler index of the delivery log (`delivery_handlers`): every delivery through
/// `meta.handlers_through`, a row a run of one handler's deliveries (`first` through `id`, with
/// fewer than `IndexRuns.maxGap` deliveries to other handlers between two of its own), written
/// in bulk with the source index rather than in every commit. An index keyed by handler takes
/// each entry at its handler's place: a commit that delivered to several handlers dirtied an
/// index page for each, and a bulk write that inserted an entry a delivery dirtied the same
/// pages with a thousand entries; a run a handler is about one entry a handler. The deliveries
/// after it are found by walking the log's tail, so what is not indexed yet (after a crash
/// too) is still read from the deliveries themselves. A handler's runs never overlap (a
/// delivery indexed on its own is one no run of its handler spans): a read joins each to the
/// log without meeting a delivery twice.
extension ButtonStore {
    /// The delivery id through which `delivery_handlers` is written (deliveries after it are
    /// the tail).
    static let handlersThrough: StaticString =
        "SELECT COALESCE((SELECT value FROM meta WHERE key = 'handlers_through'), 0)"

    /// Indexes every delivery not yet in the handler index, in a transaction of its own: at
    /// open, so the tail left by a stop or a crash does not add to the next one's.
    public func indexDeliveryHandlers() throws(StoreError) {
        try withBulkIndexes { connection, index throws(StoreError) in
            try connection.transaction { () throws(StoreError) in try Self.indexHandlers(connection, runs: IndexRuns()) }
            index.unindexedDeliveries = IndexRuns()
        }
    }

    /// Inside the caller's transaction: the index gains the deliveries after its extent, as
    /// runs, and the extent moves to the newest delivery; from `runs` when they are exactly
    /// those deliveries, else from the log.
    static func indexHandlers(_ connection: Connection, runs: IndexRuns) throws(StoreError) {
        let through = try connection.statement(handlersThrough).scalar() ?? 0
        let newest = try connection.statement("SELECT MAX(id) FROM deliveries").scalar()
        let logged = try connection.statement("SELECT COUNT(*) FROM deliveries WHERE id > ?1")
        logged.bind(through, at: 1)
        var runs = runs
        if !runs.cover(after: through, through: newest, logged: Int(try logged.scalar() ?? 0)) {
            let tail = try connection.statement("SELECT id, handler FROM deliveries WHERE id > ?1 ORDER BY id")
            tail.bind(through, at: 1)
            runs = IndexRuns()
            for (id, handler) in try tail.rows({ ($0.int64(0), $0.text(1)) }) { runs.append(id, of: handler) }
        }
        try runs.insert("INSERT OR IGNORE INTO delivery_handlers (handler, id, first) VALUES ", in: connection)
        let extend = try connection.statement(
            """
            INSERT INTO meta (key, value) VALUES ('handlers_through', COALESCE(?2, ?1))
            ON CONFLICT (key) DO UPDATE SET value = MAX(value, excluded.value)
            """)
        extend.bind(through, at: 1)
        extend.bind(newest, at: 2)
        try extend.run()
    }

    /// Inside the caller's transaction: `rows`, inserted outside an event commit, that the
    /// index's extent (`through`) has already passed index themselves, each a run of its own. An id is
    /// taken before its transaction begins, so a bulk write in between may have moved the
    /// extent past it: a row that waited for the next one would be in neither the index nor
    /// the tail. One that a run of its handler already spans is found through that run.
    static func indexHandlers(of rows: [DeliveryRow], through: Int64, in connection: Connection) throws(StoreError) {
        let insert = try connection.statement(
            """
            INSERT OR IGNORE INTO delivery_handlers (handler, id)
            SELECT ?1, ?2 WHERE NOT EXISTS (
                SELECT 1 FROM (SELECT first, id FROM delivery_handlers WHERE handler = ?1 AND id >= ?2 ORDER BY id LIMIT 1)
                WHERE first <= ?2)
            """)
        for row in rows where row.id <= through {
            insert.bind(row.handler, at: 1)
            insert.bind(row.id, at: 2)
            try insert.run()
        }
    }

    /// A handler's deliveries after the index's extent, newest first: a walk of the log's
    /// tail. ?1 the extent, ?2 the id they are older than, ?3 the handler, ?4 the limit, ?5 a
    /// stored status or NULL (`+status`: a status index must not be taken for the walk).
    static let handlerTail: StaticString = """
        SELECT * FROM delivery_rows WHERE id > ?1 AND id < ?2 AND handler = ?3 AND (?5 IS NULL OR +status = ?5)
        ORDER BY id DESC LIMIT ?4
        """

    /// A handler's deliveries through the index's extent, newest first: a seek of its runs
    /// from the newest that may hold one older than ?2 (?1: the extent, or the first run
    /// ending at or after ?2 if that is older; the runs after it hold none), each joined to the
    /// log's rows it spans, the other handlers' skipped. The page's ids are found first and
    /// only its rows are read whole (a run may span a bulk write's thousands of rows). The
    /// other parameters are `handlerTail`'s.
    static let handlerIndexed: StaticString = """
        SELECT r.* FROM (
            SELECT d.id FROM delivery_handlers h CROSS JOIN deliveries d ON d.id BETWEEN COALESCE(h.first, h.id) AND h.id
            WHERE h.handler = ?3 AND h.id <= ?1 AND d.id < ?2 AND d.handler = ?3 AND (?5 IS NULL OR +d.status = ?5)
            ORDER BY h.id DESC, d.id DESC LIMIT ?4
        ) page CROSS JOIN delivery_rows r ON r.id = page.id
        ORDER BY r.id DESC
        """

    /// The first of `handler`'s runs that ends at or after `before`: the only one that may hold
    /// deliveries on both sides of it (a handler's runs do not overlap).
    static let runEndingAfter: StaticString =
        "SELECT MIN(id) FROM delivery_handlers WHERE handler = ?1 AND id >= ?2"

    /// `handler`'s deliveries newest first, older than `before`, of one stored `status` if
    /// given, up to `limit`, in one snapshot: the tail after the index's extent (a walk of the
    /// log's newest rows), then the index's runs through it.
    static func deliveries(
        handler: String, status: DeliveryStatus?, before: Int64, limit: Int, in connection: Connection
    ) throws(StoreError) -> [DeliveryRow] {
        try connection.reading { () throws(StoreError) in
            let through = try connection.statement(handlersThrough).scalar() ?? 0
            let straddling = try connection.statement(runEndingAfter)
            straddling.bind(handler, at: 1)
            straddling.bind(before, at: 2)
            let newestRun = min(through, try straddling.scalar() ?? through)
            var rows: [DeliveryRow] = []
            for (statement, extent) in [(try connection.statement(handlerTail), through), (try connection.statement(handlerIndexed), newestRun)]
            where rows.count < limit {
                statement.bind(extent, at: 1)
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
