import Outbox
import Platform

/// How many attempts each destination has in flight, so that one destination that hangs (a
/// receiver that never answers, a script that runs into its timeout) cannot hold every
/// worker: a destination may use `limit` workers (seven eighths of the pool: a fast receiver
/// gets almost all of it, and an eighth, 2 of 16, is always left for the others), and one that was slow
/// lately (an attempt that timed out, could not connect, or took a second or more, in the last
/// minute) only `slowLimit` (a quarter).
///
/// A destination is what fails as one: a webhook's scheme, host and port (every handler
/// pointing at one receiver); a script's file (every handler running it: what hangs is the
/// script or what it talks to, and one script stuck must not hold back the others); a sender
/// of the server's own, its handler id. Each sender names its own (`DeliverySender.destination`). A value, decided without threads or sockets.
public struct DestinationSlots: Sendable, Equatable {
    public let limit: Int
    public let slowLimit: Int
    public private(set) var busy: [String: Int] = [:]
    /// Until when (ms) each destination counts as slow.
    public private(set) var slowUntil: [String: Int64] = [:]
    /// How long a slow attempt keeps its destination to `slowLimit`.
    public static let slowForMs: Int64 = 60_000
    /// An attempt this long (or one that timed out or could not connect) was slow.
    public static let slowAttemptMs: Int64 = 1_000

    public init(limit: Int, slowLimit: Int? = nil) {
        self.limit = max(1, limit)
        self.slowLimit = min(self.limit, max(1, slowLimit ?? limit))
    }

    /// The limits for a pool of `workers`: all but an eighth of it (14 of the default 16: with
    /// 12, scenario 2 of `make bench` drained its outbox in 2.3 s, with 14 in 1.0 s) and, for a
    /// slow destination, a quarter (4); at least one.
    public init(workers: Int) { self.init(limit: workers - max(1, workers / 8), slowLimit: workers / 4) }

    /// What `destination` may have in flight at `now`.
    public func limit(of destination: String, now: Int64) -> Int {
        (slowUntil[destination] ?? .min) > now ? slowLimit : limit
    }

    /// Whether one more attempt may start on `destination`.
    public func hasRoom(_ destination: String, now: Int64 = 0) -> Bool {
        busy[destination, default: 0] < limit(of: destination, now: now)
    }

    public mutating func take(_ destination: String) { busy[destination, default: 0] += 1 }

    /// An attempt on `destination` ended (`slow`: it timed out, could not connect or took a
    /// second or more). Returns whether the destination was full, so that a waiting delivery
    /// to it may now go.
    @discardableResult
    public mutating func release(_ destination: String, slow: Bool = false, now: Int64 = 0) -> Bool {
        let count = busy[destination, default: 0]
        guard count > 0 else { return false }
        busy[destination] = count > 1 ? count - 1 : nil
        let full = count >= limit(of: destination, now: now)
        if slow { slowUntil[destination] = now + Self.slowForMs } else if slowUntil[destination] ?? .max <= now { slowUntil[destination] = nil }
        return full
    }

    /// The destination of a webhook URL: `scheme://host:port`, lower-cased, the port made
    /// explicit (80 or 443 when the URL has none). Only the authority is read: the path may
    /// hold placeholders.
    public static func destination(webhook url: String) -> String {
        let lower = url.lowercased()
        guard let parts = URLParts(lower) else { return "webhook:" + lower }
        guard let port = parts.port, !port.isEmpty else {
            let host = parts.port == nil ? parts.authority : parts.authority.dropLast()  // `host:` has the default port
            return "\(parts.scheme)://\(host):\(parts.scheme == "https" ? 443 : 80)"
        }
        return "\(parts.scheme)://\(parts.authority)"
    }
}
