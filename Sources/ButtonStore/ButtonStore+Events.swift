import ButtonEngine
import Outbox
/// The event log: every control event, written before the input call answers.
extension ButtonStore {
    /// Inserts the events, applies the button state changes and queues the deliveries, in
    /// one transaction: all of it is stored or none of it.
    ///
    /// On the hot path: the statements are prepared once and reused.
    /// With `writeIndexes`, the same transaction writes the source index through its last
    /// event (`event_sources`) and the handler index through the newest delivery
    /// (`delivery_handlers`); with `keepEvents`, it then trims the log to that many events.
    public func commit(
        events: [StoredEvent], states: [ButtonStateChange], deliveries: [DeliveryRow], keepEvents: Int? = nil,
        writeIndexes: Bool = false
    ) throws(StoreError) {
        if events.isEmpty, states.isEmpty, deliveries.isEmpty { return }
        try withBulkIndexes { connection, index throws(StoreError) in
            index.unindexed.append(events)
            index.unindexedDeliveries.append(deliveries)
            try connection.transaction { () throws(StoreError) in
                try Self.insert(events, in: connection)
                try Self.update(states, in: connection)
                try Self.insert(deliveries, in: connection)
                if writeIndexes {
                    try Self.indexSources(connection, runs: index.unindexed, indexed: &index.indexed)
                    index.unindexed = IndexRuns()
                    try Self.indexHandlers(connection, runs: index.unindexedDeliveries)
                    index.unindexedDeliveries = IndexRuns()
                }
                if let keepEvents { _ = try Self.trim(connection, keep: keepEvents, indexed: &index.indexed) }
            }
        }
    }

    /// Runs `body` with the writer connection and the bulk-written indexes' state, taken out for it
    /// and put back; if `body` throws, the state no longer claims to be the database's.
    func withBulkIndexes<Result: Sendable>(
        _ body: (Connection, inout BulkIndexState) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try withConnection { connection throws(StoreError) in
            var index = bulkIndexes.withLock { $0.take() }
            defer { bulkIndexes.withLock { [index] in $0 = index } }
            do throws(StoreError) {
                return try body(connection, &index)
            } catch {
                index.forget()
                throw error
            }
        }
    }

    /// The events' rows, many a statement. When they continue the table's last row one by one
    /// (the sequencer's batches do), their seq is left to SQLite, which numbers a row given none
    /// the largest seq plus one, the same number: it then appends each row without searching the
    /// table for its place (a third of a row's cost).
    private static func insert(_ events: [StoredEvent], in connection: Connection) throws(StoreError) {
        guard let first = events.first?.seq else { return }
        let appends = try continuesTheLog(events, in: connection)
        try connection.insertRows(
            events.count, head: "INSERT INTO events (seq, type, button, sheet, t, data, by, id, json) VALUES ",
            row: "(?, ?, ?, ?, ?, ?, ?, ?, ?)", parameters: 9
        ) { index, base, insert, values in
            bind(events, index, numbered: !appends, at: base, to: insert, values: &values)
        }
        let last = first + Int64(events.count - 1)
        guard !appends || connection.lastInsertRowID == last else {
            throw StoreError("events \(first) to \(last) were numbered up to \(connection.lastInsertRowID) in \(connection.path)")
        }
    }

    /// The row of `events[index]` at parameters `base + 1` ... `base + 9`: its seq only if
    /// `numbered`. Its fields are read in place: passing the event copied it whole.
    private static func bind(
        _ events: [StoredEvent], _ index: Int, numbered: Bool, at base: Int32, to insert: Statement,
        values: inout BorrowedValues
    ) {
        if numbered { insert.bind(events[index].seq, at: base + 1) }
        values.append(events[index].type, at: base + 2)
        if let button = events[index].button { values.append(button, at: base + 3) }
        if let sheet = events[index].sheet { values.append(sheet, at: base + 4) }
        insert.bind(events[index].t, at: base + 5)
        if let compact = events[index].compact {
            // What the event is, once: no JSON, and no id where the run's prefix gives it.
            let data = events[index].json[compact.data]
            if !data.elementsEqual("{}".utf8) { values.append(data, at: base + 6) }
            if let by = compact.by { values.append(by, at: base + 7) }
            if !compact.derivedID { values.append(events[index].id, at: base + 8) }
        } else {
            values.append(events[index].id, at: base + 8)
            values.append(events[index].json, at: base + 9)
        }
    }

    /// Whether `events` are numbered one by one from the seq after the table's largest.
    private static func continuesTheLog(_ events: [StoredEvent], in connection: Connection) throws(StoreError) -> Bool {
        guard let first = events.first?.seq, events.indices.allSatisfy({ events[$0].seq == first + Int64($0) }) else {
            return false
        }
        return try connection.statement("SELECT COALESCE(MAX(seq), 0) FROM events").scalar() == first - 1
    }

    /// The buttons' live states, a prepared UPDATE a button; a button's row is made on its first
    /// change. A multi-row upsert (`INSERT … ON CONFLICT DO UPDATE`) tried each row's insert
    /// before updating it, a sixth more work a row: sixteen buttons pressed in turn paid it for
    /// each button a commit touched.
    private static func update(_ states: [ButtonStateChange], in connection: Connection) throws(StoreError) {
        guard !states.isEmpty else { return }
        let update = try connection.statement(
            "UPDATE button_states SET face = ?2, clock = ?3, held = ?4, taps = ?5, armed_until = ?6 WHERE id = ?1")
        var missing: [Int] = []
        for index in states.indices {
            bind(states[index], to: update)
            try update.run()
            if connection.changes == 0 { missing.append(index) }
        }
        guard !missing.isEmpty else { return }
        let insert = try connection.statement(
            "INSERT INTO button_states (id, face, clock, held, taps, armed_until) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        for index in missing {
            bind(states[index], to: insert)
            try insert.run()
        }
    }

    /// A state's row at ?1 … ?6: id, face, clock, held, taps, armed_until.
    private static func bind(_ state: ButtonStateChange, to statement: Statement) {
        statement.bind(state.id, at: 1)
        statement.bind(state.face, at: 2)
        statement.bind(state.clock, at: 3)
        statement.bind(state.held, at: 4)
        statement.bind(state.tapCount, at: 5)
        statement.bind(state.armedUntil, at: 6)
    }

    /// The highest seq ever committed (0 for a new store), even if retention trimmed it since.
    public func lastSeq() throws(StoreError) -> Int64 {
        try withConnection { connection throws(StoreError) in
            try connection.statement(
                """
                SELECT MAX(COALESCE((SELECT MAX(seq) FROM events), 0),
                           COALESCE((SELECT value FROM meta WHERE key = 'trimmed_through'), 0))
                """
            ).scalar() ?? 0
        }
    }

    /// Up to `limit` events with seq greater than `after`, oldest first; with `button`, only
    /// those whose button or sheet is that id.
    public func events(after: Int64, limit: Int, button: String?) throws(StoreError) -> [StoredEvent] {
        guard limit > 0 else { return [] }
        return try withReader { connection throws(StoreError) in
            guard let source = button else {
                return try Self.page(EventQuery.after, in: connection) { $0.bind(limit, at: 2); $0.bind(after, at: 3) }
            }
            // One snapshot: the index's extent and the tail after it must be of the same commit.
            return try connection.reading { () throws(StoreError) in
                let through = try connection.statement(EventQuery.indexedThrough).scalar() ?? 0
                var page: [StoredEvent] = []
                if after < through {
                    page = try Self.page(EventQuery.sourceIndexedAfter, in: connection) {
                        $0.bind(source, at: 1); $0.bind(limit, at: 2); $0.bind(after, at: 3); $0.bind(through, at: 4)
                    }
                }
                guard page.count < limit else { return page }
                return try page + Self.page(EventQuery.sourceTailAfter, in: connection) {
                    $0.bind(source, at: 1); $0.bind(limit - page.count, at: 2); $0.bind(max(after, through), at: 3)
                }
            }
        }
    }

    /// The newest `limit` events (only `button`'s, if given, as button or sheet), oldest first.
    public func latestEvents(limit: Int, button: String?) throws(StoreError) -> [StoredEvent] {
        guard limit > 0 else { return [] }
        return try withReader { connection throws(StoreError) in
            guard let source = button else {
                return try Self.page(EventQuery.newest, in: connection) { $0.bind(limit, at: 2) }.reversed()
            }
            return try connection.reading { () throws(StoreError) in
                let through = try connection.statement(EventQuery.indexedThrough).scalar() ?? 0
                let tail = try Self.page(EventQuery.sourceTailNewest, in: connection) {
                    $0.bind(source, at: 1); $0.bind(limit, at: 2); $0.bind(through, at: 4)
                }
                guard tail.count < limit else { return tail.reversed() }
                let indexed = try Self.page(EventQuery.sourceIndexedNewest, in: connection) {
                    $0.bind(source, at: 1); $0.bind(limit - tail.count, at: 2); $0.bind(through, at: 4)
                }
                return (tail + indexed).reversed()
            }
        }
    }

    /// Runs one of the history queries; `bind` gives its source and the page's bounds.
    private static func page(
        _ sql: StaticString, in connection: Connection, bind: (Statement) -> Void
    ) throws(StoreError) -> [StoredEvent] {
        let select = try connection.statement(sql)
        bind(select)
        var runs: EventRuns?
        var failure: StoreError?
        let page = try select.rows { row in
            Self.event(row) { seq in
                if runs == nil {
                    do throws(StoreError) { runs = try EventRuns(connection) } catch {
                        failure = error
                        runs = EventRuns()
                    }
                }
                return runs!.prefix(for: seq)
            }
        }
        if let failure { throw failure }
        return page
    }

    /// Records the id prefix of the sequencer's run that numbers its events from `firstSeq`:
    /// its rows keep no id (`StoredEvent.Compact.derivedID`), and a read gives them this one.
    public func beginEventRun(firstSeq: Int64, prefix: String) throws(StoreError) {
        let sql: StaticString =
            "INSERT INTO event_runs (first_seq, prefix) VALUES (?1, ?2) ON CONFLICT (first_seq) DO UPDATE SET prefix = ?2"
        try withConnection { connection throws(StoreError) in
            let record = try connection.statement(sql)
            record.bind(firstSeq, at: 1)
            record.bind(prefix, at: 2)
            try record.run()
        }
    }

    /// Retention: deletes the oldest events so at most `keep` remain. Returns how many were deleted.
    @discardableResult
    public func trimEvents(keep: Int) throws(StoreError) -> Int {
        try withBulkIndexes { connection, index throws(StoreError) in
            try connection.transaction { () throws(StoreError) in try Self.trim(connection, keep: keep, indexed: &index.indexed) }
        }
    }

    /// Sources that many, or more, in the trimmed entries are deleted with one read of the trimmed events instead.
    static let sourcesDeletedOneByOne = 256

    private static func trim(_ connection: Connection, keep: Int, indexed: inout IndexedSources) throws(StoreError) -> Int {
        // seq grows by one, so the newest `keep` are those above max − keep: no scan over the
        // kept rows.
        guard let newest = try connection.statement("SELECT MAX(seq) FROM events").scalar() else { return 0 }
        let through = newest - Int64(max(0, keep))
        guard through > 0 else { return 0 }
        // Their entries in the source index first: one range of it for each source they have (a
        // run that ends after `through` stays: the read finds only its events still kept).
        if let sources = indexed.sources(through: through), sources.count < sourcesDeletedOneByOne {
            let unindex = try connection.statement("DELETE FROM event_sources WHERE source = ?1 AND seq <= ?2")
            for source in sources {
                unindex.bind(source, at: 1)
                unindex.bind(through, at: 2)
                try unindex.run()
            }
        } else {
            let unindex = try connection.statement(
                """
                DELETE FROM event_sources
                WHERE source IN (SELECT COALESCE(button, sheet) FROM events WHERE seq <= ?1) AND seq <= ?1
                """)
            unindex.bind(through, at: 1)
            try unindex.run()
        }
        indexed.trimmed(through: through)
        let delete = try connection.statement("DELETE FROM events WHERE seq <= ?1")
        delete.bind(through, at: 1)
        try delete.run()
        let deleted = connection.changes
        // Runs whose every event is gone: all before the one the oldest kept event belongs to.
        let forget = try connection.statement(
            "DELETE FROM event_runs WHERE first_seq < (SELECT MAX(first_seq) FROM event_runs WHERE first_seq <= ?1 + 1)")
        forget.bind(through, at: 1)
        try forget.run()
        // Remember the trimmed seq so lastSeq() never goes back, even with no events left.
        let remember = try connection.statement(
            """
            INSERT INTO meta (key, value) VALUES ('trimmed_through', ?1)
            ON CONFLICT (key) DO UPDATE SET value = MAX(value, excluded.value)
            """)
        remember.bind(through, at: 1)
        try remember.run()
        return deleted
    }

    /// A row of the history queries (`EventQuery`'s columns); a compact row's JSON rendered,
    /// its id from `prefix` (its run's) when it keeps none.
    static func event(_ row: Statement, prefix: (Int64) -> String) -> StoredEvent {
        let seq = row.int64(0)
        let type = row.text(2)
        let button = row.optionalText(3)
        let sheet = row.optionalText(4)
        let t = row.int64(5)
        let id = row.optionalText(1) ?? EventID.string(prefix: prefix(seq), seq: seq)
        if let json = row.optionalBlob(6) {
            return StoredEvent(seq: seq, id: id, type: type, button: button, sheet: sheet, t: t, json: json)
        }
        let json = EventJSON.render(
            id: id, seq: seq, type: type, button: button, sheet: sheet, t: t, data: row.optionalBlob(7),
            by: row.optionalText(8))
        return StoredEvent(seq: seq, id: id, type: type, button: button, sheet: sheet, t: t, json: json)
    }
}

/// The id prefixes of the sequencer's runs (`event_runs`), oldest first: a compact row's id is
/// the prefix of the last run that began at or before its seq.
struct EventRuns {
    private var runs: [(firstSeq: Int64, prefix: String)] = []

    init() {}

    init(_ connection: Connection) throws(StoreError) {
        runs = try connection.statement(EventQuery.runs).rows { ($0.int64(0), $0.text(1)) }
    }

    func prefix(for seq: Int64) -> String {
        var low = 0
        var high = runs.count
        while low < high {
            let mid = (low + high) / 2
            if runs[mid].firstSeq <= seq { low = mid + 1 } else { high = mid }
        }
        return low > 0 ? runs[low - 1].prefix : "evt_"
    }
}
