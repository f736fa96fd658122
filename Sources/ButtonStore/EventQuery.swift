/// The history reads: ?1 the source (a button's or sheet's id), ?2 the page's size, ?3 the
/// seq it starts after.
///
/// Every one is a range of an index (the table's seq, or `events_source` for one source), so
/// a read visits at most ?2 rows however long the log; `EventLogTests` hold each to its plan.
/// `COALESCE(button, sheet)` is the index's expression, written exactly so: SQLite uses an
/// expression index only for the same expression.
enum EventQuery {
    static let after: StaticString =
        "SELECT seq, id, type, button, sheet, t, json FROM events WHERE seq > ?3 ORDER BY seq LIMIT ?2"
    static let newest: StaticString =
        "SELECT seq, id, type, button, sheet, t, json FROM events ORDER BY seq DESC LIMIT ?2"
    static let sourceAfter: StaticString = """
        SELECT seq, id, type, button, sheet, t, json FROM events
        WHERE COALESCE(button, sheet) = ?1 AND seq > ?3 ORDER BY seq LIMIT ?2
        """
    static let sourceNewest: StaticString = """
        SELECT seq, id, type, button, sheet, t, json FROM events
        WHERE COALESCE(button, sheet) = ?1 ORDER BY seq DESC LIMIT ?2
        """
}
