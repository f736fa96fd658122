/// The delivery outbox and attempt log: what the delivery workers send, retry and report.
extension ButtonStore {
    /// Pending deliveries due by `now`, in event order.
    public func dueOutbox(now: Int64, limit: Int) throws(StoreError) -> [OutboxRow] {
        guard limit > 0 else { return [] }
        return try withConnection { connection throws(StoreError) in
            let select = try connection.statement(
                """
                SELECT id, handler, event_seq, body, status, attempts, next_attempt_at, created_at FROM outbox
                WHERE status = 'pending' AND next_attempt_at <= ?1 ORDER BY event_seq, id LIMIT ?2
                """)
            select.bind(now, at: 1)
            select.bind(limit, at: 2)
            return try select.rows(Self.outboxRow)
        }
    }

    /// The handlers that have pending deliveries.
    public func pendingHandlers() throws(StoreError) -> [String] {
        try withConnection { connection throws(StoreError) in
            try connection.statement("SELECT DISTINCT handler FROM outbox WHERE status = 'pending'").rows { $0.text(0) }
        }
    }

    /// The earliest pending delivery of each of `handlers` that has one, read beside the
    /// writer (one index seek each).
    public func pendingHeads(handlers: [String]) throws(StoreError) -> [OutboxRow] {
        guard !handlers.isEmpty else { return [] }
        return try withReader { connection throws(StoreError) in
            let select = try connection.statement(
                """
                SELECT id, handler, event_seq, body, status, attempts, next_attempt_at, created_at FROM outbox
                WHERE handler = ?1 AND status = 'pending' ORDER BY event_seq LIMIT 1
                """)
            var heads: [OutboxRow] = []
            for handler in handlers {
                select.bind(handler, at: 1)
                heads += try select.rows(Self.outboxRow)
            }
            return heads
        }
    }

    /// One delivery, or nil if there is none with that id.
    public func outbox(id: String) throws(StoreError) -> OutboxRow? {
        try withReader { connection throws(StoreError) in
            let select = try connection.statement(
                """
                SELECT id, handler, event_seq, body, status, attempts, next_attempt_at, created_at FROM outbox
                WHERE id = ?1
                """)
            select.bind(id, at: 1)
            return try select.rows(Self.outboxRow).first
        }
    }

    /// The delivery log, newest first, optionally for one handler and/or one status.
    public func deliveries(handler: String?, status: String?, limit: Int) throws(StoreError) -> [OutboxRow] {
        guard limit > 0 else { return [] }
        return try withReader { connection throws(StoreError) in
            let select = try connection.statement(
                """
                SELECT id, handler, event_seq, body, status, attempts, next_attempt_at, created_at FROM outbox
                WHERE (?1 IS NULL OR handler = ?1) AND (?2 IS NULL OR status = ?2)
                ORDER BY event_seq DESC, id DESC LIMIT ?3
                """)
            select.bind(handler, at: 1)
            select.bind(status, at: 2)
            select.bind(limit, at: 3)
            return try select.rows(Self.outboxRow)
        }
    }

    /// Inserts outbox rows outside an event commit (a handler test, a redelivery).
    public func enqueue(_ rows: [OutboxRow]) throws(StoreError) {
        guard !rows.isEmpty else { return }
        try withConnection { connection throws(StoreError) in
            let insert = try Self.insertOutboxStatement(connection)
            try connection.transaction { () throws(StoreError) in
                for row in rows {
                    Self.bind(row, to: insert)
                    try insert.run()
                }
            }
        }
    }

    /// Sets a delivery's status, attempt count and next attempt time.
    public func updateOutbox(id: String, status: String, attempts: Int, nextAttemptAt: Int64) throws(StoreError) {
        try withConnection { connection throws(StoreError) in
            try Self.update(id: id, status: status, attempts: attempts, nextAttemptAt: nextAttemptAt, in: connection)
        }
    }

    static func update(id: String, status: String, attempts: Int, nextAttemptAt: Int64, in connection: Connection) throws(StoreError) {
        let update = try connection.statement(
            "UPDATE outbox SET status = ?2, attempts = ?3, next_attempt_at = ?4 WHERE id = ?1")
        update.bind(id, at: 1)
        update.bind(status, at: 2)
        update.bind(attempts, at: 3)
        update.bind(nextAttemptAt, at: 4)
        try update.run()
    }

    /// Marks deliveries `in_flight`, all in one transaction.
    public func markInFlight(_ rows: [OutboxRow]) throws(StoreError) {
        guard !rows.isEmpty else { return }
        try withConnection { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                for row in rows {
                    try Self.update(id: row.id, status: "in_flight", attempts: row.attempts, nextAttemptAt: row.nextAttemptAt, in: connection)
                }
            }
        }
    }

    /// One finished attempt and the state it leaves its delivery in.
    public struct FinishedAttempt: Sendable {
        public var attempt: StoredAttempt
        public var status: String
        public var nextAttemptAt: Int64

        public init(_ attempt: StoredAttempt, status: String, nextAttemptAt: Int64) {
            self.attempt = attempt
            self.status = status
            self.nextAttemptAt = nextAttemptAt
        }
    }

    /// Records attempts and their deliveries' new states, all in one transaction.
    public func finishAttempts(_ finished: [FinishedAttempt]) throws(StoreError) {
        guard !finished.isEmpty else { return }
        try withConnection { connection throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                for item in finished {
                    try Self.insert(item.attempt, in: connection)
                    try Self.update(
                        id: item.attempt.delivery, status: item.status, attempts: item.attempt.number,
                        nextAttemptAt: item.nextAttemptAt, in: connection)
                }
            }
        }
    }

    /// At start: deliveries left `in_flight` by a stopped process become `pending` again
    /// (at-least-once). Returns how many.
    @discardableResult
    public func resetInFlight() throws(StoreError) -> Int {
        try withConnection { connection throws(StoreError) in
            try connection.statement("UPDATE outbox SET status = 'pending' WHERE status = 'in_flight'").run()
            return connection.changes
        }
    }

    /// Deliveries not finished yet: `pending` plus `in_flight`.
    public func outboxDepth() throws(StoreError) -> Int {
        try withConnection { connection throws(StoreError) in
            Int(
                try connection.statement(
                    "SELECT COUNT(*) FROM outbox WHERE status IN ('pending', 'in_flight')"
                ).scalar() ?? 0)
        }
    }

    /// Logs one attempt of a delivery; the same (delivery, number) again replaces it.
    public func recordAttempt(
        delivery: String, number: Int, startedAt: Int64, durationMs: Int64, outcome: String, statusCode: Int?,
        exitCode: Int?, output: String
    ) throws(StoreError) {
        let attempt = StoredAttempt(
            delivery: delivery, number: number, startedAt: startedAt, durationMs: durationMs, outcome: outcome,
            statusCode: statusCode, exitCode: exitCode, output: output)
        try withConnection { connection throws(StoreError) in try Self.insert(attempt, in: connection) }
    }

    static func insert(_ attempt: StoredAttempt, in connection: Connection) throws(StoreError) {
        let insert = try connection.statement(
            """
            INSERT OR REPLACE INTO attempts
                (delivery, number, started_at, duration_ms, outcome, status_code, exit_code, output)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """)
        insert.bind(attempt.delivery, at: 1)
        insert.bind(attempt.number, at: 2)
        insert.bind(attempt.startedAt, at: 3)
        insert.bind(attempt.durationMs, at: 4)
        insert.bind(attempt.outcome, at: 5)
        insert.bind(attempt.statusCode, at: 6)
        insert.bind(attempt.exitCode, at: 7)
        insert.bind(attempt.output, at: 8)
        try insert.run()
    }

    /// The attempts of one delivery, first attempt first.
    public func attempts(delivery: String) throws(StoreError) -> [StoredAttempt] {
        try withReader { connection throws(StoreError) in
            let select = try connection.statement(
                """
                SELECT delivery, number, started_at, duration_ms, outcome, status_code, exit_code, output
                FROM attempts WHERE delivery = ?1 ORDER BY number
                """)
            select.bind(delivery, at: 1)
            return try select.rows { row in
                StoredAttempt(
                    delivery: row.text(0), number: row.int(1), startedAt: row.int64(2), durationMs: row.int64(3),
                    outcome: row.text(4), statusCode: row.optionalInt(5), exitCode: row.optionalInt(6),
                    output: row.text(7))
            }
        }
    }

    static func insertOutboxStatement(_ connection: Connection) throws(StoreError) -> Statement {
        try connection.statement(
            """
            INSERT INTO outbox (id, handler, event_seq, body, status, attempts, next_attempt_at, created_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """)
    }

    static func bind(_ row: OutboxRow, to insert: Statement) {
        insert.bind(row.id, at: 1)
        insert.bind(row.handler, at: 2)
        insert.bind(row.eventSeq, at: 3)
        insert.bind(row.body, at: 4)
        insert.bind(row.status, at: 5)
        insert.bind(row.attempts, at: 6)
        insert.bind(row.nextAttemptAt, at: 7)
        insert.bind(row.createdAt, at: 8)
    }

    static func outboxRow(_ row: Statement) -> OutboxRow {
        OutboxRow(
            id: row.text(0), handler: row.text(1), eventSeq: row.int64(2), body: row.blob(3), status: row.text(4),
            attempts: row.int(5), nextAttemptAt: row.int64(6), createdAt: row.int64(7))
    }
}
