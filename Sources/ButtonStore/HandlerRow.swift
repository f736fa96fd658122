import ButtonEngine

/// A handler as a row of the `handlers` table, in the types SQLite keeps: all the store reads
/// and writes of a handler (`ButtonStore+Handlers.swift` holds every statement on that table).
/// What a kind's columns mean (`url` … `timeoutMs`) is `Handlers`', which makes its `Handler`
/// of a row and a row of it.
public struct HandlerRow: Sendable, Equatable {
    public var id: String
    public var owner: Source
    /// Order among its owner's handlers (see `ButtonStore.nextHandlerPosition(owner:)`).
    public var position: Int
    /// The events it fires on.
    public var on: [EventType]
    public var option: String?
    public var enabled: Bool
    public var ordered: Bool
    /// `webhook`, `script` or `osc`.
    public var kind: String
    public var url: String?
    public var method: String?
    /// JSON text, as are `body` and `args`.
    public var headers: String?
    public var body: String?
    public var name: String?
    public var args: String?
    public var timeoutMs: Int64
    public var maxAttempts: Int64
    public var expireAfterMs: Int64?
    /// A webhook's signing secret (`whsec_…`).
    public var secret: String?

    public init(
        id: String, owner: Source, position: Int, on: [EventType], option: String?, enabled: Bool, ordered: Bool, kind: String,
        url: String? = nil, method: String? = nil, headers: String? = nil, body: String? = nil, name: String? = nil,
        args: String? = nil, timeoutMs: Int64, maxAttempts: Int64, expireAfterMs: Int64?, secret: String?
    ) {
        (self.id, self.owner, self.position, self.on, self.option) = (id, owner, position, on, option)
        (self.enabled, self.ordered, self.kind, self.url, self.method) = (enabled, ordered, kind, url, method)
        (self.headers, self.body, self.name, self.args, self.timeoutMs) = (headers, body, name, args, timeoutMs)
        (self.maxAttempts, self.expireAfterMs, self.secret) = (maxAttempts, expireAfterMs, secret)
    }
}

/// What the store keeps as a handler's row: a row, or `Handlers`' `StoredHandler` (so a
/// config import hands its handlers over as they are).
public protocol HandlerRowConvertible: Sendable {
    var row: HandlerRow { get }
}

extension HandlerRow: HandlerRowConvertible {
    public var row: HandlerRow { self }
}
