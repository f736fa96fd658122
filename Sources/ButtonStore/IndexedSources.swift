/// Which sources the source index's entries have, by the bulk write that made them: retention
/// deletes the trimmed events' entries one source's range at a time, and this names those
/// sources without reading the trimmed events back (a thousand rows a trim, a tenth of the
/// commit path). Entries this process did not write from its runs (written before it started,
/// or from the log) are of sources it does not know: until retention has trimmed past them, the
/// trim reads the trimmed events instead.
struct IndexedSources {
    /// One bulk write: its entries end after `after`, through `through`.
    struct Write {
        var after: Int64
        var through: Int64
        var sources: Set<String>
    }

    private(set) var writes: [Write] = []
    /// Entries through this seq may be of sources no write here names; nil: there are none.
    private(set) var unknownThrough: Int64? = .max

    /// Knows nothing: every entry may be of a source it does not know.
    init() {}

    /// Knows that every entry, all through `through`, is of one of `sources`.
    init(sources: Set<String>, through: Int64) {
        writes = [Write(after: .min, through: through, sources: sources)]
        unknownThrough = nil
    }

    /// A write of the runs of the events after `after` through `through`.
    mutating func wrote(after: Int64, through: Int64, sources: Set<String>) {
        if unknownThrough == .max { unknownThrough = after }
        writes.append(Write(after: after, through: through, sources: sources))
    }

    /// A write from the log, whose sources are not known, through `through`.
    mutating func wroteFromTheLog(through: Int64) {
        unknownThrough = max(unknownThrough ?? through, through)
        writes.removeAll()
    }

    /// Knows nothing any more (a transaction that wrote or trimmed the index rolled back).
    mutating func forget() {
        unknownThrough = .max
        writes.removeAll()
    }

    /// The sources of every entry through `seq`, or nil if some may be unknown.
    func sources(through seq: Int64) -> Set<String>? {
        guard unknownThrough == nil else { return nil }
        var sources = Set<String>()
        for write in writes where write.after < seq { sources.formUnion(write.sources) }
        return sources
    }

    /// Retention deleted every entry through `seq`.
    mutating func trimmed(through seq: Int64) {
        if let unknown = unknownThrough, unknown <= seq { unknownThrough = nil }
        writes.removeAll { $0.through <= seq }
    }
}

/// The writer's state of the indexes it writes in bulk (`ButtonStore.bulkIndexes`): what the
/// source index's and the handler index's next bulk writes take, and whose entries the source
/// index has.
struct BulkIndexState {
    var unindexed = IndexRuns()
    /// What the handler index's next bulk write takes (`delivery_handlers`).
    var unindexedDeliveries = IndexRuns()
    var indexed = IndexedSources()

    /// This state, leaving an empty one in its place (taken out, not copied: appending to it
    /// then copies nothing).
    mutating func take() -> BulkIndexState {
        let taken = self
        self = BulkIndexState()
        return taken
    }

    /// After a transaction that did not commit: what it held is not what the database holds.
    mutating func forget() {
        unindexed.forget()
        unindexedDeliveries.forget()
        indexed.forget()
    }
}
