import ThreadSupport
import CMicroHTTPD
import CMicroHTTPDShims
import Platform

/// An address or a CIDR block (`10.0.0.0/8`, `::1`, `fd00::/8`): a `--trusted-proxy`. IPv4
/// is kept as IPv4-mapped IPv6, as the shim keeps peers, so one comparison serves both.
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    public let address: [UInt8]
    /// Over the 16-byte form: an IPv4 `/24` is 120.
    public let prefix: Int
    public let description: String

    /// `ADDR` or `ADDR/N`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first, let address = IPAddress(first) else { return nil }
        let isV4 = !first.contains(":")
        let width = isV4 ? 32 : 128
        var bits = width
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...width).contains(given), parts[1].allSatisfy(\.isASCII) else { return nil }
            bits = given
        }
        self.address = address.bytes
        prefix = bits + (isV4 ? 96 : 0)
        description = text
    }

    func contains(_ other: IPAddress) -> Bool {
        var bits = prefix
        for (a, b) in zip(address, other.bytes) where bits > 0 {
            let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
            if a & mask != b & mask { return false }
            bits -= 8
        }
        return true
    }

    /// The 17 bytes the shim reads for one range: the address, then the prefix length.
    var shimBytes: [UInt8] { address + [UInt8(prefix)] }
}

/// A connection over `--max-connections` or `--max-connections-per-ip`, answered 503 (SPEC §6:
/// never dropped in silence); reported so the server can count and log it.
public struct ConnectionRefusal: Sendable {
    public enum Reason: String, Sendable {
        /// Over `--max-connections`.
        case total
        /// Over `--max-connections-per-ip` from one address.
        case perAddress = "per_address"
    }

    public var address: String
    public var reason: Reason
    /// The limit it was over.
    public var limit: Int
    /// The first refusal of this address within a second: the one worth a log line (a client
    /// that retries at once would otherwise write one per attempt).
    public var shouldLog: Bool
}

/// When each address was last logged as refused, so it is logged at most once a second.
final class RefusalThrottle: Sendable {
    private let lastLogged = Locked<[String: Double]>([:])

    func shouldLog(_ address: String, now: Double) -> Bool {
        lastLogged.withLock { seen in
            if let last = seen[address], now - last < 1 { return false }
            // Forget what is over a second old before the table grows past a few thousand.
            if seen.count >= 4096 { seen = seen.filter { now - $0.value < 1 } }
            seen[address] = now
            return true
        }
    }
}

extension HTTPServer {
    /// The 503 for a connection the shim marked over a limit, reported once per connection;
    /// nil for every other.
    func connectionRefusal(_ connection: OpaquePointer) -> HTTPError? {
        let marked = bd_connection_refused(connection)
        guard marked != Int32(BD_REFUSED_NONE) else { return nil }
        let perAddress = marked == Int32(BD_REFUSED_PER_ADDRESS)
        let address = peerAddress(connection)
        let limit = perAddress ? configuration.perIPConnectionLimit : configuration.connectionLimit
        onConnectionRefused?(
            ConnectionRefusal(
                address: address, reason: perAddress ? .perAddress : .total, limit: limit,
                shouldLog: refusalThrottle.shouldLog(address, now: clock.monotonic())))
        let message =
            perAddress
            ? "too many connections from \(address) (at most \(limit)): close one, or retry later"
            : "too many connections (at most \(limit)): retry later"
        return HTTPError(503, code: "too_many_connections", message: message, headers: [("Retry-After", "1")])
    }

    /// The request log's `remote`: the peer, or, when the peer is a trusted proxy, the client
    /// its `X-Forwarded-For` names: the last address there that is not itself a trusted proxy
    /// (each proxy appends the address it got the request from, so what is left of the last
    /// untrusted one may be forged by the client). A hop that is not an address stops the
    /// search at the proxy that wrote it.
    func clientAddress(_ connection: OpaquePointer) -> String {
        let peer = peerAddress(connection)
        guard bd_connection_trusted(connection) != 0 else { return peer }
        let hops = Headers(of: connection).all.filter { $0.name == "x-forwarded-for" }
            .flatMap { $0.value.split(separator: ",") }.map { $0.trimmed() }
        var client = peer
        for hop in hops.reversed() {
            guard let address = IPAddress(hop) else { return client }
            client = hop
            if !configuration.trustedProxies.contains(where: { $0.contains(address) }) { return hop }
        }
        return client
    }

    func peerAddress(_ connection: OpaquePointer) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            bd_connection_client_address(connection, buffer.baseAddress!, buffer.count)
            return String(cString: buffer.baseAddress!)
        }
    }
}
