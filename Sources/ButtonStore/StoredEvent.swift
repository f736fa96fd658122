/// One control event in the durable history, kept so the stream and `/events` can replay it.
///
/// `json` is the event serialized once by the server; the store returns it byte-identical,
/// so a replayed event is exactly what was first sent.
public struct StoredEvent: Sendable, Equatable {
    public var seq: Int64
    public var id: String
    public var type: String
    public var button: String?
    public var sheet: String?
    /// Milliseconds since the Unix epoch.
    public var t: Int64
    public var json: [UInt8]

    public init(seq: Int64, id: String, type: String, button: String? = nil, sheet: String? = nil, t: Int64, json: [UInt8]) {
        self.seq = seq
        self.id = id
        self.type = type
        self.button = button
        self.sheet = sheet
        self.t = t
        self.json = json
    }
}
