/// The source index (`event_sources`): (source, seq) of every event through
/// `meta.sources_through`, a row a run of one source's consecutive events (`first` through
/// `seq`), written in bulk rather than on every commit. Every commit would
/// dirty one of its leaf pages per source it touched; a bulk write of many commits' events
/// dirties each once. The events after it are found by walking the log's tail, so what is not
/// indexed yet (after a crash too) is still read from the events themselves.
extension ButtonStore {
    /// Indexes every event not yet in the source index, in a transaction of its own: at open,
    /// so the tail left by a stop or a crash does not add to the next one's.
    public func indexSources() throws(StoreError) {
        try withBulkIndexes { connection, index throws(StoreError) in
            try connection.transaction { () throws(StoreError) in
                try Self.indexSources(connection, runs: IndexRuns(), indexed: &index.indexed)
                // The sources of every entry, when they are few: retention then deletes the
                // trimmed entries by source from the start, not only once it has trimmed past
                // the entries written before this process.
                let everySource = try connection.statement(
                    """
                    WITH RECURSIVE next(source, seen) AS (
                        SELECT (SELECT MIN(source) FROM event_sources), 0
                        UNION ALL
                        SELECT (SELECT MIN(source) FROM event_sources WHERE source > next.source), seen + 1 FROM next
                        WHERE next.source IS NOT NULL AND seen < ?1
                    )
                    SELECT source FROM next WHERE source IS NOT NULL
                    """)
                everySource.bind(Self.sourcesDeletedOneByOne, at: 1)
                let sources = try everySource.rows { $0.text(0) }
                if sources.count < Self.sourcesDeletedOneByOne {
                    let through = try connection.statement(EventQuery.indexedThrough).scalar() ?? 0
                    index.indexed = IndexedSources(sources: Set(sources), through: through)
                }
            }
            index.unindexed = IndexRuns()
        }
    }

    /// The seq through which the source index is written (events after it are the tail).
    func sourcesIndexedThrough() throws(StoreError) -> Int64 {
        try withConnection { connection throws(StoreError) in
            try connection.statement(EventQuery.indexedThrough).scalar() ?? 0
        }
    }

    /// Inside the caller's transaction: the index gains the events after its extent, which moves
    /// to the newest event; from `runs` when they are exactly those events, else from the log,
    /// an entry an event.
    static func indexSources(_ connection: Connection, runs: IndexRuns, indexed: inout IndexedSources) throws(StoreError) {
        let through = try connection.statement(EventQuery.indexedThrough).scalar() ?? 0
        let newest = try connection.statement("SELECT MAX(seq) FROM events").scalar()
        if runs.cover(after: through, through: newest) {
            try runs.insert("INSERT OR IGNORE INTO event_sources (source, seq, first) VALUES ", in: connection)
            indexed.wrote(after: through, through: newest ?? through, sources: Set(runs.runs.map(\.key)))
        } else {
            let insert = try connection.statement(
                """
                INSERT OR IGNORE INTO event_sources (source, seq)
                SELECT COALESCE(button, sheet), seq FROM events WHERE seq > ?1 AND COALESCE(button, sheet) IS NOT NULL
                """)
            insert.bind(through, at: 1)
            try insert.run()
            indexed.wroteFromTheLog(through: newest ?? through)
        }
        let extend = try connection.statement(
            """
            INSERT INTO meta (key, value) VALUES ('sources_through', (SELECT COALESCE(MAX(seq), ?1) FROM events))
            ON CONFLICT (key) DO UPDATE SET value = MAX(value, excluded.value)
            """)
        extend.bind(through, at: 1)
        try extend.run()
    }
}
