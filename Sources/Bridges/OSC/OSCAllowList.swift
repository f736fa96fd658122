import Delivery

/// `--osc-allow CIDR,…`: which senders' OSC is read (SPEC §10; default loopback only).
/// IPv4-mapped IPv6 senders are judged as their IPv4 (the server unmaps them).
struct OSCAllowList: Sendable, Equatable {
    struct Range: Sendable, Equatable {
        var address: [UInt8]
        var prefix: Int

        func contains(_ other: [UInt8]) -> Bool {
            guard other.count == address.count else { return false }
            var bits = prefix
            for (a, b) in zip(address, other) where bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if a & mask != b & mask { return false }
                bits -= 8
            }
            return true
        }
    }

    var ranges: [Range]

    static let loopback = ["127.0.0.0/8", "::1/128"]

    /// An item that is not a CIDR or an address.
    struct BadItem: Error { var item: String }

    /// Parses `a.b.c.d/n`, `x::y/n` or a bare address (a single host).
    static func parse(_ items: [String]) -> Result<OSCAllowList, BadItem> {
        var ranges: [Range] = []
        for item in items {
            let parts = item.split(separator: "/", maxSplits: 1).map(String.init)
            guard let first = parts.first, let address = DestinationRules.literalAddress(first) else { return .failure(BadItem(item: item)) }
            let prefix = parts.count == 2 ? Int(parts[1]) : address.count * 8
            guard let prefix, (0...(address.count * 8)).contains(prefix) else { return .failure(BadItem(item: item)) }
            ranges.append(Range(address: address, prefix: prefix))
        }
        return .success(OSCAllowList(ranges: ranges))
    }

    func allows(_ address: [UInt8]) -> Bool { ranges.contains { $0.contains(address) } }
}
