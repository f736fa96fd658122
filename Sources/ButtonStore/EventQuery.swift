/// The history reads: ?1 the source (a button's or sheet's id), ?2 the page's size, ?3 the
/// seq it starts after, ?4 the seq `event_sources` is written through (`indexedThrough`).
///
/// Every one is a range of an index, so what a read visits is bounded by its page, however
/// long the log: ?2 rows of the table's seq, or `event_sources` for one source up to ?4, each
/// entry a run of the source's events (`first` through `seq`, with fewer than
/// `IndexRuns.maxGap` events of other sources between two of its own, which the read skips).
/// One source's events after ?4
/// (the tail the next bulk write will index, fewer than 4000) are found by walking that tail.
/// `EventLogIndexTests` hold each to its plan and its steps. The columns are those
/// `ButtonStore.event` reads: a compact row's JSON is rendered from them.
enum EventQuery {
    static let after: StaticString =
        "SELECT seq, id, type, button, sheet, t, json, data, by FROM events WHERE seq > ?3 ORDER BY seq LIMIT ?2"
    static let newest: StaticString =
        "SELECT seq, id, type, button, sheet, t, json, data, by FROM events ORDER BY seq DESC LIMIT ?2"

    /// The id prefix of every run of the sequencer, for the rows that keep no id.
    static let runs: StaticString = "SELECT first_seq, prefix FROM event_runs ORDER BY first_seq"

    /// The seq through which `event_sources` holds every event's source.
    static let indexedThrough: StaticString =
        "SELECT COALESCE((SELECT value FROM meta WHERE key = 'sources_through'), 0)"

    static let sourceIndexedAfter: StaticString = """
        SELECT e.seq, e.id, e.type, e.button, e.sheet, e.t, e.json, e.data, e.by
        FROM event_sources s JOIN events e ON e.seq BETWEEN COALESCE(s.first, s.seq) AND s.seq
        WHERE s.source = ?1 AND s.seq > ?3 AND s.seq <= ?4 AND e.seq > ?3 AND COALESCE(e.button, e.sheet) = ?1
        ORDER BY s.seq, e.seq LIMIT ?2
        """
    static let sourceIndexedNewest: StaticString = """
        SELECT e.seq, e.id, e.type, e.button, e.sheet, e.t, e.json, e.data, e.by
        FROM event_sources s JOIN events e ON e.seq BETWEEN COALESCE(s.first, s.seq) AND s.seq
        WHERE s.source = ?1 AND s.seq <= ?4 AND COALESCE(e.button, e.sheet) = ?1
        ORDER BY s.seq DESC, e.seq DESC LIMIT ?2
        """
    /// The tail's: ?3 is at least ?4 here.
    static let sourceTailAfter: StaticString = """
        SELECT seq, id, type, button, sheet, t, json, data, by FROM events
        WHERE seq > ?3 AND COALESCE(button, sheet) = ?1 ORDER BY seq LIMIT ?2
        """
    static let sourceTailNewest: StaticString = """
        SELECT seq, id, type, button, sheet, t, json, data, by FROM events
        WHERE seq > ?4 AND COALESCE(button, sheet) = ?1 ORDER BY seq DESC LIMIT ?2
        """
}
