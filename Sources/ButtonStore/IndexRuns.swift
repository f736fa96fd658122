import Outbox

/// What a side index's next bulk write takes, kept by the writer as it commits: the numbers
/// committed since the index's last write (events' seqs for the source index, deliveries' ids
/// for the handler index) as runs of one key's numbers (a source's, a handler's), one row a run
/// instead of one row a number read back from the log. A run is `first` through `last` and may
/// hold other keys' numbers between its own, fewer than `maxGap` between two of its own: a
/// press's events are one run, and so are the presses of a button among a few dozen pressed in
/// turn (sixteen buttons pressed in turn made 21 rows each a bulk write, a row a press; now
/// one), and a thousand deliveries to 64 handlers in turn are a row a handler. A read of the
/// index skips the other keys' numbers, at most `maxGap` a row it returns. When the runs do not
/// cover exactly the numbers after the index's extent (a batch that did not follow the one
/// before, a store opened with a tail it did not see, a delivery enqueued outside a commit)
/// the write indexes the log instead.
struct IndexRuns {
    struct Run: Equatable {
        var key: String
        var first: Int64
        var last: Int64
    }

    /// Fewer than this many numbers of other keys between two of a run's own, counted as they
    /// were appended (delivery ids follow the clock: their difference counts no deliveries).
    /// 64 buttons pressed in turn by concurrent clients put a button's presses (three or four
    /// events each) about 224 events apart, and a handler a button its deliveries 0 to 130
    /// apart: with 64 they were a run a press, with 256 a run a button. A page of one source's
    /// history or one handler's deliveries skips about 255 rows at most a row it returns (a
    /// delivery enqueued outside a commit is not counted).
    static let maxGap = 256

    private(set) var runs: [Run] = []
    /// Where each run's last number came among those appended.
    private var lastPlaces: [Int] = []
    /// The place in `runs` of each key's newest run.
    private var newest: [String: Int] = [:]
    /// The place in `runs` of the run the last number went to: the next event of a press goes
    /// there too, without a look in `newest`.
    private var current: Int?
    /// How many numbers were appended (keyless events included).
    private(set) var count = 0
    /// The first and the last number appended; nil: none yet.
    private(set) var first: Int64?
    private(set) var last: Int64?
    /// False once a number was not the one after the number before it.
    private(set) var followsOneByOne = true
    /// False once a number was not larger than the number before it.
    private(set) var isIncreasing = true

    mutating func append(_ events: [StoredEvent]) {
        // By index, reading the two fields it needs: `for event in events` copied each event
        // whole (a retain and a release of each of its strings and its JSON).
        for index in events.indices {
            append(events[index].seq, of: events[index].button ?? events[index].sheet)
        }
    }

    mutating func append(_ deliveries: [DeliveryRow]) {
        for index in deliveries.indices { append(deliveries[index].id, of: deliveries[index].handler) }
    }

    /// `number`, of `key` (none: it counts in the extent and the gaps and goes in no run).
    mutating func append(_ number: Int64, of key: String?) {
        if let last {
            if number != last + 1 { followsOneByOne = false }
            if number <= last { isIncreasing = false }
        }
        if first == nil { first = number }
        last = number
        let place = count
        count += 1
        guard let key else { return }
        if let current, lastPlaces[current] == place - 1, runs[current].key == key {
            runs[current].last = number
            lastPlaces[current] = place
        } else if let open = newest[key], place - lastPlaces[open] <= Self.maxGap {
            runs[open].last = number
            lastPlaces[open] = place
            current = open
        } else {
            newest[key] = runs.count
            current = runs.count
            runs.append(Run(key: key, first: number, last: number))
            lastPlaces.append(place)
        }
    }

    /// Inserts a row a run with `head` (`INSERT ... (key, last, first) VALUES `): `first` is
    /// NULL for a run of one. OR IGNORE in `head`: an entry already there must not refuse the
    /// batch the write rides with.
    func insert(_ head: StaticString, in connection: Connection) throws(StoreError) {
        try connection.insertRows(runs.count, head: head, row: "(?, ?, ?)", parameters: 3) { index, base, insert, values in
            values.append(runs[index].key, at: base + 1)
            insert.bind(runs[index].last, at: base + 2)
            if runs[index].first != runs[index].last { insert.bind(runs[index].first, at: base + 3) }
        }
    }

    /// Marks the runs as not the numbers after the index's extent (a batch they hold was not
    /// committed, a delivery was enqueued beside them): the next write indexes from the log.
    mutating func forget() {
        followsOneByOne = false
        isIncreasing = false
    }

    /// Whether the runs are every event after `indexedThrough` up to `newest`, and only those
    /// (seqs follow one another).
    func cover(after indexedThrough: Int64, through newest: Int64?) -> Bool {
        guard followsOneByOne else { return false }
        guard let first, let last else { return newest.map { $0 <= indexedThrough } ?? true }
        return first == indexedThrough + 1 && last == newest
    }

    /// Whether the runs are every delivery after `indexedThrough` up to `newest`, of which the
    /// log holds `logged`: ids increase with gaps, so the log's count says that none is missing.
    func cover(after indexedThrough: Int64, through newest: Int64?, logged: Int) -> Bool {
        guard isIncreasing, count == logged else { return false }
        guard let first, let last else { return logged == 0 }
        return first > indexedThrough && last == newest
    }
}
