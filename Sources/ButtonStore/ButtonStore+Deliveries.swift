import JSON
import Outbox
import ButtonEngine
/// The delivery log: what the delivery workers send and retry, and what they did, kept up to a
/// retention. Written by the writer; every read here runs beside it on a reader connection.
extension ButtonStore {
    /// Inserts deliveries outside an event commit (a handler test), in one transaction. When
    /// one is after the handler index's extent, the next bulk write, whose runs do not hold it,
    /// reads the log instead.
    public func enqueue(_ rows: [DeliveryRow]) throws(StoreError) {
        guard !rows.isEmpty else { return }
        try withBulkIndexes { connection, index throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                try Self.insert(rows, in: connection)
                let through = try connection.statement(Self.handlersThrough).scalar() ?? 0
                if rows.contains(where: { $0.id > through }) { index.unindexedDeliveries.forget() }
                try Self.indexHandlers(of: rows, through: through, in: connection)
            }
        }
    }

    /// Every delivery enters the log here: an event commit and `enqueue` both use it. Many
    /// rows a statement, their fields read in place (as the events' rows are written).
    static func insert(_ rows: [DeliveryRow], in connection: Connection) throws(StoreError) {
        try connection.insertRows(
            rows.count,
            head: """
                INSERT INTO deliveries (id, handler, status, attempts, next_attempt_at, created_at, event_seq, event_id,
                    event_type, button, sheet, t, face, option, label, event, body, option_label, face_label) VALUES
                """,
            row: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", parameters: 19
        ) { index, base, insert, values in
            insert.bind(rows[index].id, at: base + 1)
            values.append(rows[index].handler, at: base + 2)
            insert.bind(rows[index].status.rawValue, at: base + 3)
            insert.bind(rows[index].attempts, at: base + 4)
            insert.bind(rows[index].nextAttemptAt, at: base + 5)
            insert.bind(rows[index].createdAt, at: base + 6)
            insert.bind(rows[index].event.seq, at: base + 7)
            values.append(rows[index].event.id, at: base + 8)
            values.append(rows[index].event.type.rawValue, at: base + 9)
            if let button = rows[index].event.source.button { values.append(button, at: base + 10) }
            if let sheet = rows[index].event.source.sheet { values.append(sheet, at: base + 11) }
            insert.bind(rows[index].event.t, at: base + 12)
            insert.bind(rows[index].event.face, at: base + 13)
            if let option = rows[index].event.option { values.append(option, at: base + 14) }
            if let label = rows[index].event.label { values.append(label, at: base + 15) }
            values.append(rows[index].event.json, at: base + 16)
            if let body = rows[index].body { values.append(body, at: base + 17) }
            if let label = rows[index].event.optionLabel { values.append(label, at: base + 18) }
            if let label = rows[index].event.faceLabel { values.append(label, at: base + 19) }
        }
    }

    /// A row of `delivery_rows`. Its `event_type` is an `EventType`'s name in every row buttond
    /// wrote (version 6 moved the outbox's from its event JSON); one that is not reads as `tap`,
    /// as a status that is not one reads as pending.
    static func deliveryRow(_ row: Statement) -> DeliveryRow {
        DeliveryRow(
            id: row.int64(0), handler: row.text(1), status: DeliveryStatus(rawValue: row.int(2)) ?? .pending,
            attempts: row.int(3), nextAttemptAt: row.int64(4), createdAt: row.int64(5),
            event: DeliveryEvent(
                seq: row.int64(6), id: row.text(7), type: EventType(rawValue: row.text(8)) ?? .tap, source: Source(button: row.optionalText(9), sheet: row.optionalText(10)),
                t: row.int64(11), face: row.optionalInt(12), option: row.optionalText(13),
                label: row.optionalText(14), optionLabel: row.optionalText(20), faceLabel: row.optionalText(21),
                json: row.blob(15)),
            body: row.optionalBlob(16), lastOutcome: row.optionalText(17), lastStatusCode: row.optionalInt(18),
            lastExitCode: row.optionalInt(19))
    }

    /// At start: every delivery not finished, oldest first (a stopped process's in-flight ones
    /// are pending on disk, so they go again: at-least-once).
    public func pendingDeliveries() throws(StoreError) -> [DeliveryRow] {
        try withReader { connection throws(StoreError) in
            try connection.statement(
                """
                SELECT * FROM delivery_rows WHERE status = 0 ORDER BY id
                """
            ).rows(Self.deliveryRow)
        }
    }

    /// The highest delivery id ever used (0 for a new store), or the handler index's extent if
    /// that is higher (its newest deliveries were deleted with their handler): a new id is above
    /// both, so it is in the log's tail until the index takes it.
    public func lastDeliveryID() throws(StoreError) -> Int64 {
        try withReader { connection throws(StoreError) in
            try connection.reading { () throws(StoreError) in
                max(
                    try connection.statement("SELECT COALESCE(MAX(id), 0) FROM deliveries").scalar() ?? 0,
                    try connection.statement(Self.handlersThrough).scalar() ?? 0)
            }
        }
    }

    /// How many finished deliveries the log holds.
    public func finishedDeliveryCount() throws(StoreError) -> Int {
        try withReader { connection throws(StoreError) in
            Int(
                try connection.statement(
                    "SELECT (SELECT COUNT(*) FROM deliveries) - (SELECT COUNT(*) FROM deliveries WHERE status = 0)"
                ).scalar() ?? 0)
        }
    }

    /// One delivery, or nil.
    public func delivery(id: Int64) throws(StoreError) -> DeliveryRow? {
        try withReader { connection throws(StoreError) in
            let select = try connection.statement(
                """
                SELECT * FROM delivery_rows WHERE id = ?1
                """)
            select.bind(id, at: 1)
            return try select.rows(Self.deliveryRow).first
        }
    }

    /// The log newest first, older than `before` if given, for one handler and/or one stored
    /// status. A handler's walks the handler index (and the log's tail after it; with a
    /// status too: a handler has far fewer rows than a status), pending ones and those that
    /// ended badly their partial indexes, `ok` ones the log newest first (they are most of it).
    public func deliveries(
        handler: String?, status: DeliveryStatus?, before: Int64?, limit: Int
    ) throws(StoreError) -> [DeliveryRow] {
        guard limit > 0 else { return [] }
        return try withReader { connection throws(StoreError) in
            if let handler {
                return try Self.deliveries(handler: handler, status: status, before: before ?? .max, limit: limit, in: connection)
            }
            let select: Statement
            if status == .pending {
                select = try connection.statement(
                    """
                    SELECT * FROM delivery_rows WHERE status = 0 AND id < ?2 ORDER BY id DESC LIMIT ?3
                    """)
            } else if status == .ok {
                select = try connection.statement(
                    """
                    SELECT * FROM delivery_rows WHERE +status = 1 AND id < ?2 ORDER BY id DESC LIMIT ?3
                    """)
            } else if let status {
                select = try connection.statement(
                    """
                    SELECT * FROM delivery_rows
                    WHERE status > 1 AND +status = ?1 AND id < ?2 ORDER BY id DESC LIMIT ?3
                    """)
                select.bind(status.rawValue, at: 1)
            } else {
                select = try connection.statement(
                    """
                    SELECT * FROM delivery_rows WHERE id < ?2 ORDER BY id DESC LIMIT ?3
                    """)
            }
            select.bind(before ?? Int64.max, at: 2)
            select.bind(limit, at: 3)
            return try select.rows(Self.deliveryRow)
        }
    }

    /// The log newest first for the panel's filters: any of `handlers` (nil: every handler),
    /// one `source` (a button's or a sheet's deliveries, the server's own MQTT rows included),
    /// one stored `status`, and with `failedOnly` only those with at least one attempt made.
    /// One statement for every combination: a filter not given is a NULL that passes every
    /// row. It walks the log newest first, so it reads what it returns and what it skips.
    public func deliveries(
        handlers: [String]?, source: Source?, status: DeliveryStatus?, attempted: Bool, before: Int64?, limit: Int
    ) throws(StoreError) -> [DeliveryRow] {
        guard limit > 0, handlers.map({ !$0.isEmpty }) ?? true else { return [] }
        if source == nil, !attempted, (handlers?.count ?? 1) == 1 {
            return try deliveries(handler: handlers?.first, status: status, before: before, limit: limit)
        }
        return try withReader { connection throws(StoreError) in
            let select = try connection.statement(
                """
                SELECT * FROM delivery_rows
                WHERE id < ?1 AND (?3 IS NULL OR +status = ?3)
                    AND (?4 IS NULL OR handler IN (SELECT value FROM json_each(?4)))
                    AND (?5 IS NULL OR button = ?5) AND (?6 IS NULL OR sheet = ?6) AND (?7 = 0 OR attempts > 0)
                ORDER BY id DESC LIMIT ?2
                """)
            select.bind(before ?? Int64.max, at: 1)
            select.bind(limit, at: 2)
            select.bind(status?.rawValue, at: 3)
            select.bind(handlers.map { String(decoding: JSONWriter.encode(.array($0.map { .string($0) })), as: UTF8.self) }, at: 4)
            select.bind(source?.button, at: 5)
            select.bind(source?.sheet, at: 6)
            select.bind(attempted, at: 7)
            return try select.rows(Self.deliveryRow)
        }
    }

    /// The attempts of one delivery, first attempt first.
    public func attempts(delivery: Int64) throws(StoreError) -> [StoredAttempt] {
        try withReader { connection throws(StoreError) in
            let select = try connection.statement(
                """
                SELECT delivery, number, started_at, duration_ms, outcome, status_code, exit_code, output
                FROM delivery_attempts WHERE delivery = ?1 ORDER BY number
                """)
            select.bind(delivery, at: 1)
            return try select.rows { row in
                StoredAttempt(
                    delivery: row.int64(0), number: row.int(1), startedAt: row.int64(2), durationMs: row.int64(3),
                    outcome: row.text(4), statusCode: row.optionalInt(5), exitCode: row.optionalInt(6),
                    output: row.text(7))
            }
        }
    }

    /// Records attempts and their deliveries' new states in one transaction (an attempt of a
    /// delivery deleted meanwhile, with its handler, is dropped), then, past the retention,
    /// trims the oldest finished deliveries with their attempts. Returns how many deliveries
    /// this finished and how many were trimmed.
    @discardableResult
    public func record(_ finished: [FinishedAttempt], retention: Retention? = nil) throws(StoreError) -> (finished: Int, trimmed: Int) {
        guard !finished.isEmpty || retention != nil else { return (0, 0) }
        return try withConnection { connection throws(StoreError) in
            let update = try connection.statement(
                "UPDATE deliveries SET status = ?2, attempts = ?3, next_attempt_at = ?4 WHERE id = ?1")
            return try connection.transaction { () throws(StoreError) -> (finished: Int, trimmed: Int) in
                var finishing = 0
                var recorded: [Int] = []
                recorded.reserveCapacity(finished.count)
                for (index, item) in finished.enumerated() {
                    update.bind(item.attempt.delivery, at: 1)
                    update.bind(item.status.rawValue, at: 2)
                    update.bind(item.attempt.number, at: 3)
                    update.bind(item.nextAttemptAt, at: 4)
                    try update.run()
                    guard connection.changes > 0 else { continue }
                    if item.status.isFinished { finishing += 1 }
                    recorded.append(index)
                }
                // The attempts of the deliveries still there, many a statement.
                try connection.insertRows(
                    recorded.count,
                    head: """
                        INSERT OR REPLACE INTO delivery_attempts
                            (delivery, number, started_at, duration_ms, outcome, status_code, exit_code, output) VALUES
                        """,
                    row: "(?, ?, ?, ?, ?, ?, ?, ?)", parameters: 8
                ) { index, base, insert, values in
                    let attempt = finished[recorded[index]].attempt
                    insert.bind(attempt.delivery, at: base + 1)
                    insert.bind(attempt.number, at: base + 2)
                    insert.bind(attempt.startedAt, at: base + 3)
                    insert.bind(attempt.durationMs, at: base + 4)
                    values.append(attempt.outcome, at: base + 5)
                    insert.bind(attempt.statusCode, at: base + 6)
                    insert.bind(attempt.exitCode, at: base + 7)
                    values.append(attempt.output, at: base + 8)
                }
                guard let retention else { return (finishing, 0) }
                let excess = retention.finishedBefore + finishing - retention.keep
                guard excess > retention.slack else { return (finishing, 0) }
                let trimming = excess
                let oldest = try connection.statement(
                    "SELECT MAX(id) FROM (SELECT id FROM deliveries WHERE status > 0 ORDER BY id LIMIT ?1)")
                oldest.bind(trimming, at: 1)
                guard let through = try oldest.scalar() else { return (finishing, 0) }
                // The rows to drop are the finished ones through `through`: a walk of the log
                // from its start. Their handlers are named first, and their attempts go first.
                let handlers = try connection.statement(
                    "SELECT DISTINCT handler FROM deliveries WHERE id <= ?1 AND +status > 0")
                handlers.bind(through, at: 1)
                let trimmedHandlers = try handlers.rows { $0.text(0) }
                let dropAttempts = try connection.statement(
                    """
                    DELETE FROM delivery_attempts WHERE delivery IN
                        (SELECT id FROM deliveries WHERE id <= ?1 AND +status > 0)
                    """)
                let drop = try connection.statement("DELETE FROM deliveries WHERE id <= ?1 AND +status > 0")
                for statement in [dropAttempts, drop] {
                    statement.bind(through, at: 1)
                    try statement.run()
                }
                let trimmed = connection.changes
                try Self.unindexTrimmed(handlers: trimmedHandlers, through: through, in: connection)
                return (finishing, trimmed)
            }
        }
    }

    /// After retention dropped the finished deliveries through `through`: the runs of their
    /// `handlers` that end there and span no delivery of theirs any more leave the index. What
    /// is left in such a run's span is still pending (retention dropped every finished row):
    /// a run that spans one of its handler's stays, and goes with a later trim.
    private static func unindexTrimmed(handlers: [String], through: Int64, in connection: Connection) throws(StoreError) {
        let unindex = try connection.statement(
            """
            DELETE FROM delivery_handlers AS h WHERE h.handler = ?1 AND h.id <= ?2 AND NOT EXISTS (
                SELECT 1 FROM deliveries d WHERE d.id BETWEEN COALESCE(h.first, h.id) AND h.id AND d.handler = ?1)
            """)
        for handler in handlers {
            unindex.bind(handler, at: 1)
            unindex.bind(through, at: 2)
            try unindex.run()
        }
    }

    /// Makes a delivery pending again, due at `at` (a redelivery). Returns whether it exists.
    @discardableResult
    public func reschedule(delivery id: Int64, at: Int64) throws(StoreError) -> Bool {
        try withConnection { connection throws(StoreError) in
            let update = try connection.statement(
                "UPDATE deliveries SET status = 0, next_attempt_at = ?2 WHERE id = ?1")
            update.bind(id, at: 1)
            update.bind(at, at: 2)
            try update.run()
            return connection.changes > 0
        }
    }

    /// Drops a handler's whole delivery log (pending and finished) with the attempts: the ids
    /// the handler index holds and those of the log's tail after it.
    static func deleteDeliveries(handler: String, in connection: Connection) throws(StoreError) {
        let through = try connection.statement(handlersThrough).scalar() ?? 0
        // The ids: the deliveries its runs span through the extent (?2), and the tail's after it.
        let dropAttempts = try connection.statement(
            """
            DELETE FROM delivery_attempts WHERE delivery IN (
                SELECT d.id FROM delivery_handlers h CROSS JOIN deliveries d ON d.id BETWEEN COALESCE(h.first, h.id) AND h.id
                WHERE h.handler = ?1 AND d.handler = ?1
                UNION ALL SELECT id FROM deliveries WHERE id > ?2 AND handler = ?1)
            """)
        let drop = try connection.statement(
            """
            DELETE FROM deliveries WHERE id IN (
                SELECT d.id FROM delivery_handlers h CROSS JOIN deliveries d ON d.id BETWEEN COALESCE(h.first, h.id) AND h.id
                WHERE h.handler = ?1 AND d.handler = ?1
                UNION ALL SELECT id FROM deliveries WHERE id > ?2 AND handler = ?1)
            """)
        for statement in [dropAttempts, drop] {
            statement.bind(handler, at: 1)
            statement.bind(through, at: 2)
            try statement.run()
        }
        let unindex = try connection.statement("DELETE FROM delivery_handlers WHERE handler = ?1")
        unindex.bind(handler, at: 1)
        try unindex.run()
    }
}
