import ButtonStore

/// How many attempts each destination has in flight, at most `limit` at once, so that one
/// destination that hangs (a receiver that never answers, a script that runs into its
/// timeout) holds a few workers and the others keep theirs.
///
/// A destination is what fails as one: a webhook's scheme, host and port (every handler
/// pointing at one receiver); a script's file (every handler running it: what hangs is the
/// script or what it talks to, and one script stuck must not hold back the others); a sender
/// of the server's own, its handler id. A value, decided without threads or sockets.
public struct DestinationSlots: Sendable, Equatable {
    public let limit: Int
    public private(set) var busy: [String: Int] = [:]

    public init(limit: Int) { self.limit = max(1, limit) }

    /// The limit for a pool of `workers`: a quarter of it (4 of the default 16), at least one.
    public static func limit(workers: Int) -> Int { max(1, workers / 4) }

    /// Whether one more attempt may start on `destination`.
    public func hasRoom(_ destination: String) -> Bool { busy[destination, default: 0] < limit }

    public mutating func take(_ destination: String) { busy[destination, default: 0] += 1 }

    /// An attempt on `destination` ended. Returns whether the destination was full, so that
    /// a waiting delivery to it may now go.
    @discardableResult
    public mutating func release(_ destination: String) -> Bool {
        let count = busy[destination, default: 0]
        guard count > 0 else { return false }
        busy[destination] = count > 1 ? count - 1 : nil
        return count >= limit
    }

    /// The destination of a webhook URL: `scheme://host:port`, lower-cased, the port made
    /// explicit (80 or 443 when the URL has none). Only the authority is read: the path may
    /// hold placeholders.
    public static func destination(webhook url: String) -> String {
        let lower = url.lowercased()
        guard let separator = lower.firstRange(of: "://") else { return "webhook:" + lower }
        let scheme = lower[..<separator.lowerBound]
        var authority = lower[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        // The port follows the last colon, unless that colon is inside an IPv6 literal.
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            let port = authority[authority.index(after: colon)...]
            if !port.isEmpty { return "\(scheme)://\(authority)" }
            authority = authority[..<colon]
        }
        return "\(scheme)://\(authority):\(scheme == "https" ? 443 : 80)"
    }

    /// The destination of a handler's action.
    static func destination(of handler: Handler) -> String {
        switch handler.action {
        case .webhook(let webhook): destination(webhook: webhook.url)
        case .script(let script): "script:" + script.name
        }
    }
}
