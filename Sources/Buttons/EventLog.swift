import Outbox
import ButtonEngine
import ButtonStore
import JSON

/// The ordered, durable record of every control event. The sequencer numbers a batch's
/// events from `nextSeq` and hands them to `write`, which stores them with the button states
/// they leave behind and their deliveries in one transaction; only after it committed does
/// `nextSeq` move on, so a batch the store refused uses no seq numbers. Not thread-safe:
/// `write` and `nextSeq` belong to the sequencer thread; `history` reads on a reader.
package final class EventLog: @unchecked Sendable {  // mutable state is touched by the sequencer thread only
    private let store: ButtonStore
    private let retention: Int
    /// The seq the next committed event gets.
    private(set) var nextSeq: Int64
    /// Events written since the last maintenance (index and trim).
    private var sinceTrim = 0
    package let idPrefix: String

    package init(store: ButtonStore, retention: Int) throws(StoreError) {
        self.store = store
        self.retention = retention
        self.nextSeq = try store.lastSeq() + 1
        // What a stop or a crash left unindexed is indexed now: the tail a read walks stays
        // under one maintenance interval.
        try store.indexSources()
        try store.indexDeliveryHandlers()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        self.idPrefix = "evt_" + String((0..<8).map { _ in alphabet.randomElement()! }) + "_"
        // Rows keep no id where this prefix and their seq give it back.
        try store.beginEventRun(firstSeq: nextSeq, prefix: idPrefix)
    }

    /// The last seq committed (0 for a new log).
    package var lastSeq: Int64 { nextSeq - 1 }

    /// An event as its row: compact (its JSON was rendered by `EventJSON`), with no id when
    /// the id is this run's prefix and its seq.
    package func stored(_ event: ControlEvent) -> StoredEvent {
        // This run's prefix and a positive seq: the row's run gives the id back, so it is not
        // made (nor stored) at all.
        let derived = event.seq > 0 && event.idPrefix == idPrefix
        let compact = StoredEvent.Compact(data: event.dataRange, by: event.by, derivedID: derived)
        return StoredEvent(
            seq: event.seq, id: derived ? "" : event.id, type: event.type.rawValue, button: event.source.button,
            sheet: event.source.sheet, t: event.t, json: event.json, compact: compact)
    }

    /// Events between two maintenance writes: the longest tail of the log a filtered read walks.
    /// Each write dirties an index page or two a source and a handler whatever it indexes, so
    /// it is worth as many events as a read can walk quickly: 4000 (a millisecond's walk). With
    /// 1000, the writes of 64 buttons' and handlers' indexes were two fifths of the pages
    /// press + webhook put in the WAL.
    package var maintenanceInterval: Int { max(1, min(4000, retention / 10)) }

    /// Writes one batch in one transaction: events (numbered from `nextSeq` on), states and
    /// deliveries; every `maintenanceInterval` events the same transaction indexes the events'
    /// sources and the deliveries' handlers since the last time (so each index page is written
    /// once, not once a commit) and trims the log.
    package func write(_ events: [ControlEvent], states: [ButtonStateChange], deliveries: [DeliveryRow]) throws(StoreError) {
        precondition(events.first.map { $0.seq == nextSeq } ?? true, "events must be numbered from nextSeq")
        let maintain = sinceTrim + events.count >= maintenanceInterval
        try store.commit(
            events: events.map(stored), states: states, deliveries: deliveries,
            keepEvents: maintain ? retention : nil, writeIndexes: maintain)
        nextSeq += Int64(events.count)
        sinceTrim = maintain ? 0 : sinceTrim + events.count
    }

    /// A page of history, read beside the writer.
    /// The history of several sources, merged in seq order: each read is one index range.
    package func history(after: Int64?, limit: Int, sources: [String]) throws(ButtonsError) -> [StoredEvent] {
        var merged: [StoredEvent] = []
        for source in sources { merged += try history(after: after, limit: limit, source: source) }
        merged.sort { $0.seq < $1.seq }
        return after == nil ? Array(merged.suffix(limit)) : Array(merged.prefix(limit))
    }

    package func history(after: Int64?, limit: Int, source: String?) throws(ButtonsError) -> [StoredEvent] {
        do throws(StoreError) {
            if let after { return try store.events(after: after, limit: limit, button: source) }
            // No cursor: the newest `limit` events, oldest first.
            return try store.latestEvents(limit: limit, button: source)
        } catch {
            throw ButtonsError.unavailable("the event log could not be read: \(error.description)", retryAfter: 1)
        }
    }
}
