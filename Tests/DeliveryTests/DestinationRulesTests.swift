import Delivery
import Testing

/// Where a webhook may go (SPEC §5): every range edge, every IPv4 spelling, and the loop
/// back to buttond's own listeners, decided without a socket.
@Suite struct DestinationRulesTests {
    typealias Rules = DestinationRules

    static let linkLocal = "a link-local address"
    static let multicast = "a multicast address"
    static let unspecified = "the unspecified address"
    static let broadcast = "the broadcast address"
    static let own = "buttond's own address"
    static let loopback = "a loopback address"
    static let `private` = "a private address"

    static let open = Rules()
    static let deny = Rules(denyPrivate: true)
    static let lan: [UInt8] = [192, 168, 1, 5]
    static let global6: [UInt8] = [0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5]
    static func listening(_ host: String, _ port: Int = 8080, denyPrivate: Bool = false) -> Rules {
        Rules(denyPrivate: denyPrivate, listeners: [Rules.listener(host: host, port: port)!], localAddresses: [lan, global6])
    }

    @Test(arguments: [
        // Link-local 169.254.0.0/16 and fe80::/10.
        ("169.253.255.255", 80, open, nil),
        ("169.254.0.0", 80, open, linkLocal),
        ("169.254.255.255", 80, open, linkLocal),
        ("169.255.0.0", 80, open, nil),
        ("fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 80, open, nil),
        ("fe80::", 80, open, linkLocal),
        ("febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 80, open, linkLocal),
        ("fec0::", 80, open, nil),
        // Multicast 224.0.0.0/4 and ff00::/8.
        ("223.255.255.255", 80, open, nil),
        ("224.0.0.0", 80, open, multicast),
        ("239.255.255.255", 80, open, multicast),
        ("240.0.0.0", 80, open, nil),
        ("feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 80, open, nil),
        ("ff00::", 80, open, multicast),
        ("ff02::1", 80, open, multicast),
        // Unspecified: all of 0/8, and ::.
        ("0.0.0.0", 80, open, unspecified),
        ("0.255.255.255", 80, open, unspecified),
        ("1.0.0.0", 80, open, nil),
        ("::", 80, open, unspecified),
        // The limited broadcast address, refused like multicast (240/4 is otherwise left alone).
        ("255.255.255.255", 80, open, broadcast),
        ("255.255.255.255", 80, deny, broadcast),
        ("255.255.255.254", 80, open, nil),
        ("4294967295", 80, open, broadcast),
        ("0xffffffff", 80, open, broadcast),
        ("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 80, open, multicast),
        // Loopback and private: allowed by default (the LAN is where home automation lives)…
        ("127.0.0.1", 80, open, nil),
        ("10.0.0.1", 80, open, nil),
        ("172.16.0.1", 80, open, nil),
        ("192.168.1.1", 80, open, nil),
        ("::1", 80, open, nil),
        ("fd00::1", 80, open, nil),
        // …refused with denyPrivate, at every edge.
        ("126.255.255.255", 80, deny, nil),
        ("127.0.0.0", 80, deny, loopback),
        ("127.255.255.255", 80, deny, loopback),
        ("128.0.0.0", 80, deny, nil),
        ("9.255.255.255", 80, deny, nil),
        ("10.0.0.0", 80, deny, `private`),
        ("10.255.255.255", 80, deny, `private`),
        ("11.0.0.0", 80, deny, nil),
        ("172.15.255.255", 80, deny, nil),
        ("172.16.0.0", 80, deny, `private`),
        ("172.31.255.255", 80, deny, `private`),
        ("172.32.0.0", 80, deny, nil),
        ("192.167.255.255", 80, deny, nil),
        ("192.168.0.0", 80, deny, `private`),
        ("192.168.255.255", 80, deny, `private`),
        ("192.169.0.0", 80, deny, nil),
        ("::1", 80, deny, loopback),
        ("::2", 80, deny, unspecified),
        ("fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 80, deny, nil),
        ("fc00::", 80, deny, `private`),
        ("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 80, deny, `private`),
        ("fe00::", 80, deny, nil),
        ("8.8.8.8", 80, deny, nil),
        ("2001:db8::1", 80, deny, nil),
        // Link-local, multicast and unspecified win over denyPrivate's reasons.
        ("169.254.169.254", 80, deny, linkLocal),
        ("0.0.0.0", 80, deny, unspecified),
        // IPv4-mapped IPv6 is judged as its IPv4.
        ("::ffff:169.254.169.254", 80, open, linkLocal),
        ("::ffff:224.0.0.1", 80, open, multicast),
        ("::ffff:0.0.0.0", 80, open, unspecified),
        ("::ffff:127.0.0.1", 80, deny, loopback),
        ("::ffff:10.0.0.1", 80, deny, `private`),
        ("::ffff:8.8.8.8", 80, deny, nil),
        ("::ffff:255.255.255.255", 80, open, broadcast),
        // So is IPv4-compatible IPv6 (::a.b.c.d), for every rule; :: and ::1 stay IPv6's own.
        ("::169.254.169.254", 80, open, linkLocal),
        ("::224.0.0.1", 80, open, multicast),
        ("::255.255.255.255", 80, open, broadcast),
        ("::0.0.0.2", 80, open, unspecified),
        ("::0.255.255.255", 80, open, unspecified),
        ("::127.0.0.1", 80, open, nil),
        ("::127.0.0.1", 80, deny, loopback),
        ("::10.0.0.1", 80, deny, `private`),
        ("::172.16.0.1", 80, deny, `private`),
        ("::192.168.1.1", 80, deny, `private`),
        ("::8.8.8.8", 80, deny, nil),
        ("::1.0.0.0", 80, deny, nil),
        ("::0:0:1", 80, deny, loopback),
        ("::1:0:0", 80, deny, nil),
        ("::fffe:10.0.0.1", 80, deny, nil),
        ("[::a9fe:a9fe]", 80, open, linkLocal),
        // Every IPv4 spelling inet_aton (and so curl and getaddrinfo) accepts.
        ("2130706433", 80, deny, loopback),
        ("0x7f.1", 80, deny, loopback),
        ("0177.0.0.1", 80, deny, loopback),
        ("127.1", 80, deny, loopback),
        ("169.254.169.254", 80, open, linkLocal),
        ("2852039166", 80, open, linkLocal),
        ("0xa9fea9fe", 80, open, linkLocal),
        ("0251.0376.0251.0376", 80, open, linkLocal),
        ("169.16689662", 80, open, linkLocal),
        ("0", 80, open, unspecified),
        // Brackets, as in a URL; an IPv6 zone does not hide the address.
        ("[::1]", 80, deny, loopback),
        ("[::ffff:169.254.169.254]", 80, open, linkLocal),
        ("[::169.254.169.254]", 80, open, linkLocal),
        ("[::ffff:255.255.255.255]", 80, open, broadcast),
        ("[fe80::1]", 80, open, linkLocal),
        ("[fe80::1%25eth0]", 80, open, linkLocal),
        ("[ff02::1]", 80, open, multicast),
        ("[::]", 80, open, unspecified),
        ("[2001:db8::1]", 80, deny, nil),
    ] as [(String, Int, Rules, String?)])
    func ranges(_ host: String, _ port: Int, _ rules: Rules, _ reason: String?) {
        #expect(rules.refusal(literalHost: host, port: port) == reason)
        let bytes = Rules.literalAddress(host)
        #expect(bytes != nil)
        #expect(rules.refusal(address: bytes ?? [], port: port) == reason)
    }

    @Test(arguments: [
        // A specific listener: that address and port only (for 127.x, only the exact address).
        ("127.0.0.1", 8080, listening("127.0.0.1"), own),
        ("127.0.0.1", 8081, listening("127.0.0.1"), nil),
        ("127.0.0.2", 8080, listening("127.0.0.1"), nil),
        ("::ffff:127.0.0.1", 8080, listening("127.0.0.1"), own),
        ("::127.0.0.1", 8080, listening("127.0.0.1"), own),
        ("[::127.0.0.1]", 8080, listening("127.0.0.1"), own),
        ("::127.0.0.1", 8081, listening("127.0.0.1"), nil),
        ("::127.0.0.1", 8080, listening("::1"), nil),
        ("::1", 8080, listening("127.0.0.1"), nil),
        ("127.0.0.1", 8080, listening("localhost"), own),
        ("127.0.0.1", 8080, listening("127.0.0.1", denyPrivate: true), own),
        ("127.0.0.1", 8081, listening("127.0.0.1", denyPrivate: true), loopback),
        ("192.168.1.5", 8080, listening("192.168.1.5"), own),
        ("127.0.0.1", 8080, listening("192.168.1.5"), nil),
        ("[::1]", 8080, listening("::1"), own),
        ("[::1]", 8080, listening("[::1]"), own),
        ("127.0.0.1", 8080, listening("::1"), nil),
        // An IPv4 wildcard: its port on any loopback or interface address, IPv4 only.
        ("127.0.0.1", 8080, listening("0.0.0.0"), own),
        ("127.8.9.10", 8080, listening("0.0.0.0"), own),
        ("0x7f.1", 8080, listening("0.0.0.0"), own),
        ("192.168.1.5", 8080, listening("0.0.0.0"), own),
        ("::ffff:192.168.1.5", 8080, listening("0.0.0.0"), own),
        ("::192.168.1.5", 8080, listening("0.0.0.0"), own),
        ("::127.8.9.10", 8080, listening("0.0.0.0"), own),
        ("192.168.1.6", 8080, listening("0.0.0.0"), nil),
        ("192.168.1.5", 8081, listening("0.0.0.0"), nil),
        ("127.0.0.1", 9090, listening("0.0.0.0"), nil),
        ("::1", 8080, listening("0.0.0.0"), nil),
        ("2001:db8::5", 8080, listening("0.0.0.0"), nil),
        ("0.0.0.0", 8080, listening("0.0.0.0"), unspecified),
        // An IPv6 wildcard: the same for IPv6, and IPv4 too (dual stack).
        ("::1", 8080, listening("::"), own),
        ("2001:db8::5", 8080, listening("::"), own),
        ("[2001:db8::5]", 8080, listening("[::]"), own),
        ("2001:db8::6", 8080, listening("::"), nil),
        ("::1", 9090, listening("::"), nil),
        ("127.0.0.1", 8080, listening("::"), own),
        ("192.168.1.5", 8080, listening("::"), own),
        ("::ffff:192.168.1.5", 8080, listening("::"), own),
        ("::192.168.1.5", 8080, listening("::"), own),
        ("::127.0.0.1", 8080, listening("::"), own),
        ("8.8.8.8", 8080, listening("::"), nil),
    ] as [(String, Int, Rules, String?)])
    func ownAddress(_ host: String, _ port: Int, _ rules: Rules, _ reason: String?) {
        #expect(rules.refusal(literalHost: host, port: port) == reason)
    }

    /// Names are checked after resolution; so is anything that is not exactly a literal.
    @Test(arguments: [
        "example.com", "localhost", "LOCALHOST", "", "[]", "[example.com]", "127.0.0.1.", "1.2.3.4.5", "256.0.0.1",
        "08.0.0.1", "127.0.0.1 x", "127.0.0.1\u{0}x", "::g", "[::1",
    ])
    func names(_ host: String) {
        let rules = Self.listening("0.0.0.0", denyPrivate: true)
        #expect(Rules.literalAddress(host) == nil)
        #expect(rules.refusal(literalHost: host, port: 8080) == nil)
    }

    @Test(arguments: [
        ("0x7f.1", [127, 0, 0, 1]),
        ("0177.0.0.1", [127, 0, 0, 1]),
        ("2852039166", [169, 254, 169, 254]),
        ("[::1]", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
        ("::FFFF:1.2.3.4", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 1, 2, 3, 4]),
        ("::1.2.3.4", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]),
    ] as [(String, [UInt8])])
    func literalBytes(_ host: String, _ bytes: [UInt8]) {
        #expect(Rules.literalAddress(host) == bytes)
    }

    @Test(arguments: [
        ("127.0.0.1", [127, 0, 0, 1]),
        ("localhost", [127, 0, 0, 1]),
        ("0.0.0.0", [0, 0, 0, 0]),
        ("::", [UInt8](repeating: 0, count: 16)),
        ("::1", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
        ("[::1]", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
        ("example.com", nil),
    ] as [(String, [UInt8]?)])
    func listener(_ host: String, _ address: [UInt8]?) {
        #expect(Rules.listener(host: host, port: 8080) == address.map { Rules.Listener(address: $0, port: 8080) })
    }

    @Test func badLength() {
        #expect(Self.open.refusal(address: [], port: 80) == "not an IP address")
        #expect(Self.open.refusal(address: [8, 8, 8], port: 80) == "not an IP address")
    }

    /// getifaddrs(3) sees at least loopback, and every address is one refusal() can judge.
    @Test func interfaces() {
        let addresses = Rules.interfaceAddresses()
        #expect(addresses.contains([127, 0, 0, 1]))
        #expect(addresses.allSatisfy { $0.count == 4 || $0.count == 16 })
        let rules = Rules(listeners: [Rules.listener(host: "::", port: 8080)!], localAddresses: addresses)
        for address in addresses where address.count == 4 && address[0] != 169 {
            #expect(rules.refusal(address: address, port: 8080) == Self.own)
        }
    }
}
