/// Where a delivery stands. Stored as its raw value; `inFlight` is never stored (a delivery
/// being attempted is `pending` on disk, so a restart sends it again: at-least-once).
public enum DeliveryStatus: Int, Sendable, CaseIterable {
    case pending = 0
    case ok = 1
    case failed = 2
    case expired = 3
    case blocked = 4
    case inFlight = 5

    /// The name the API and the log use.
    public var name: String {
        switch self {
        case .pending: "pending"
        case .ok: "ok"
        case .failed: "failed"
        case .expired: "expired"
        case .blocked: "blocked"
        case .inFlight: "in_flight"
        }
    }

    public init?(name: String) {
        guard let status = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = status
    }

    /// Delivered, failed for good, expired or blocked: nothing more will be tried.
    public var isFinished: Bool { self != .pending && self != .inFlight }
}
