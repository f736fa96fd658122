/// The events committed since the source index's last write, as runs of one source's events:
/// what the next write inserts into `event_sources`, one row a run instead of one row an event
/// read back from the log. A run is `first` through `last` and may hold other sources' events
/// between its own, fewer than `maxGap` between two of its own: a press's events are one run,
/// and so are the presses of a button among a few dozen pressed in turn (sixteen buttons
/// pressed in turn made 21 rows each a bulk write, a row a press; now one). A read of the
/// index skips the others' events, at most `maxGap` a row it returns. Kept by the writer;
/// when it does not cover exactly the events after the index's extent (a batch that did not
/// follow the one before, a store opened with a tail it did not see) the write indexes the log
/// event by event instead.
struct SourceRuns {
    struct Run: Equatable {
        var source: String
        var first: Int64
        var last: Int64
    }

    /// Fewer than this many events of other sources between two of a run's own.
    static let maxGap: Int64 = 64

    private(set) var runs: [Run] = []
    /// The place in `runs` of each source's newest run.
    private var newest: [String: Int] = [:]
    /// The place in `runs` of the run the last event went to: the next event of a press goes
    /// there too, without a look in `newest`.
    private var current: Int?
    /// The first and the last seq the runs cover (sourceless events included); nil: none yet.
    private(set) var first: Int64?
    private(set) var last: Int64?
    /// False once an event did not follow the one before it.
    private(set) var isContiguous = true

    mutating func append(_ events: [StoredEvent]) {
        // By index, reading the two fields it needs: `for event in events` copied each event
        // whole (a retain and a release of each of its strings and its JSON).
        for index in events.indices {
            let seq = events[index].seq
            if let last, seq != last + 1 { isContiguous = false }
            if first == nil { first = seq }
            last = seq
            guard let source = events[index].button ?? events[index].sheet else { continue }
            if let current, runs[current].last == seq - 1, runs[current].source == source {
                runs[current].last = seq
            } else if let open = newest[source], seq - runs[open].last <= Self.maxGap {
                runs[open].last = seq
                current = open
            } else {
                newest[source] = runs.count
                current = runs.count
                runs.append(Run(source: source, first: seq, last: seq))
            }
        }
    }

    /// Marks the runs as not the events after the index's extent (a batch they hold was not
    /// committed): the next write indexes from the log.
    mutating func forget() {
        isContiguous = false
    }

    /// Whether the runs are every event after `indexedThrough` up to `newest`, and only those.
    func cover(after indexedThrough: Int64, through newest: Int64?) -> Bool {
        guard isContiguous else { return false }
        guard let first, let last else { return newest.map { $0 <= indexedThrough } ?? true }
        return first == indexedThrough + 1 && last == newest
    }
}
