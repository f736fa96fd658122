/// One control event in the durable history, kept so the stream and `/events` can replay it.
///
/// `json` is the event as clients see it. A row written by the sequencer keeps only what the
/// event is (type, source, `t`, its data object, the sender; the id as its run's prefix) and
/// the store renders `json` from them on read with `EventJSON`, the same code that rendered it
/// first, so a replayed event is byte-identical to the one first sent. Any other row (older
/// than schema version 15 and not reproducible, or written without `compact`) keeps its JSON
/// as given.
public struct StoredEvent: Sendable, Equatable {
    public var seq: Int64
    public var id: String
    public var type: String
    public var button: String?
    public var sheet: String?
    /// Milliseconds since the Unix epoch.
    public var t: Int64
    public var json: [UInt8]
    /// How `commit` writes the row: set when `json` is `EventJSON`'s rendering of this event,
    /// whose parts it names; nil keeps `json` as it is. Not read back, not compared.
    public var compact: Compact?

    /// The parts of `json` that the row keeps instead of it.
    public struct Compact: Sendable {
        /// Where the data object lies in `json` (`{}` is stored as NULL).
        public var data: Range<Int>
        /// The sender (`by`), if any.
        public var by: String?
        /// Whether `id` is the prefix this process's run recorded (`beginEventRun`) followed by
        /// `seq` in base 36: then the row keeps no id.
        public var derivedID: Bool

        public init(data: Range<Int>, by: String?, derivedID: Bool) {
            self.data = data
            self.by = by
            self.derivedID = derivedID
        }
    }

    public init(
        seq: Int64, id: String, type: String, button: String? = nil, sheet: String? = nil, t: Int64, json: [UInt8],
        compact: Compact? = nil
    ) {
        self.seq = seq
        self.id = id
        self.type = type
        self.button = button
        self.sheet = sheet
        self.t = t
        self.json = json
        self.compact = compact
    }

    public static func == (a: StoredEvent, b: StoredEvent) -> Bool {
        a.seq == b.seq && a.id == b.id && a.type == b.type && a.button == b.button && a.sheet == b.sheet && a.t == b.t
            && a.json == b.json
    }
}
