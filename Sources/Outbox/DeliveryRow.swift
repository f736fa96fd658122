import ButtonEngine
import ThreadSupport

/// One durable delivery of one event to one handler: written with the event, sent by a worker,
/// kept in the delivery log once finished (up to the retention).
public struct DeliveryRow: Sendable, Equatable {
    /// Time-ordered and unique (microseconds since the epoch when made, made unique by
    /// `DeliveryIDs`): the log's key and, as `publicID`, the `webhook-id` of every attempt.
    public var id: Int64
    public var handler: String
    public var status: DeliveryStatus
    public var attempts: Int
    /// Milliseconds since the Unix epoch.
    public var nextAttemptAt: Int64
    /// Milliseconds since the Unix epoch.
    public var createdAt: Int64
    public var event: DeliveryEvent
    /// The exact bytes sent on every attempt when the handler shapes its own body (a rendered
    /// template); nil when the event JSON itself is sent.
    public var body: [UInt8]?
    /// How its last attempt ended (`ok`, `http_status`, …), nil before the first, with the
    /// receiver's status code or the script's exit code.
    public var lastOutcome: String?
    public var lastStatusCode: Int?
    public var lastExitCode: Int?

    public init(
        id: Int64, handler: String, status: DeliveryStatus = .pending, attempts: Int = 0, nextAttemptAt: Int64,
        createdAt: Int64, event: DeliveryEvent, body: [UInt8]? = nil, lastOutcome: String? = nil,
        lastStatusCode: Int? = nil, lastExitCode: Int? = nil
    ) {
        self.id = id
        self.handler = handler
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
        self.event = event
        self.body = body
        self.lastOutcome = lastOutcome
        self.lastStatusCode = lastStatusCode
        self.lastExitCode = lastExitCode
    }

    /// The bytes every attempt sends (and signs).
    public var payload: [UInt8] { body ?? event.json }

    /// `dlv_` and the id in base 36.
    public var publicID: String { Self.publicID(id) }

    public static func publicID(_ id: Int64) -> String { "dlv_" + String(id, radix: 36) }

    /// The id inside a `dlv_…` string, or nil if it is not one.
    public static func id(publicID: String) -> Int64? {
        guard publicID.hasPrefix("dlv_"), publicID.utf8.count <= 20 else { return nil }
        let digits = publicID.dropFirst(4)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isNumber || ("a"..."z").contains($0) }),
            let id = Int64(digits, radix: 36), id > 0
        else { return nil }
        return id
    }
}

/// The facts of the event a delivery carries, typed, so nothing has to parse the JSON again
/// to run a script or fill a template.
public struct DeliveryEvent: Sendable, Equatable {
    public var seq: Int64
    public var id: String
    public var type: EventType
    /// The button or sheet that emitted it.
    public var source: Source
    /// Milliseconds since the Unix epoch.
    public var t: Int64
    public var face: Int?
    public var option: String?
    /// The button's or sheet's label when the event happened.
    public var label: String?
    /// The chosen option's label (a sheet's `select`) and the new face's label (a toggle).
    public var optionLabel: String?
    public var faceLabel: String?
    /// The event as the stream and the log show it.
    public var json: [UInt8]

    public init(
        seq: Int64, id: String, type: EventType, source: Source, t: Int64, face: Int? = nil,
        option: String? = nil, label: String? = nil, optionLabel: String? = nil, faceLabel: String? = nil, json: [UInt8]
    ) {
        self.optionLabel = optionLabel
        self.faceLabel = faceLabel
        self.seq = seq
        self.id = id
        self.type = type
        self.source = source
        self.t = t
        self.face = face
        self.option = option
        self.label = label
        self.json = json
    }
}

/// Hands out delivery ids: the current time in microseconds, or one more than the last id if
/// the clock has not moved past it, so ids are unique and grow with time.
public final class DeliveryIDs: Sendable {
    private let last: Locked<Int64>

    public init(after last: Int64) { self.last = Locked(last) }

    public func next(nowMicros: Int64) -> Int64 {
        last.withLock { last in
            last = max(last + 1, nowMicros)
            return last
        }
    }
}
