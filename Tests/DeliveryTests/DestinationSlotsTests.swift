import Delivery
import Testing

/// The per-destination limit on attempts in flight, and what counts as one destination.
@Suite struct DestinationSlotsTests {
    @Test func aFullDestinationHasNoRoomAndOthersKeepTheirs() {
        var slots = DestinationSlots(limit: 4)
        for _ in 0..<4 {
            #expect(slots.hasRoom("http://hung:80"))
            slots.take("http://hung:80")
        }
        #expect(!slots.hasRoom("http://hung:80"))
        #expect(slots.hasRoom("http://healthy:80"))
        slots.take("http://healthy:80")
        #expect(slots.busy == ["http://hung:80": 4, "http://healthy:80": 1])
        // Releasing from full says so (a waiting delivery may go); below the limit it does not.
        let released = [slots.release("http://hung:80")]
        #expect(slots.hasRoom("http://hung:80"))
        let more = [slots.release("http://hung:80"), slots.release("http://healthy:80"), slots.release("http://nowhere:80")]
        #expect(released + more == [true, false, false, false], "only a release from full says so; one without a take changes nothing")
        #expect(slots.busy == ["http://hung:80": 2])
    }

    @Test(arguments: [(1, 1, 1), (3, 2, 1), (4, 3, 1), (16, 14, 4), (17, 15, 4), (64, 56, 16)])
    func aDestinationMayUseAllButAnEighthOfThePoolAndASlowOneAQuarter(workers: Int, limit: Int, slow: Int) {
        let slots = DestinationSlots(workers: workers)
        #expect(slots.limit == limit && slots.slowLimit == slow)
        #expect(DestinationSlots(limit: 0).limit == 1)
    }

    /// A fast receiver gets most of the pool; one that timed out gets a quarter for a minute,
    /// then all of it again once it answers promptly.
    @Test func aSlowAttemptNarrowsItsDestinationForAMinute() {
        var slots = DestinationSlots(workers: 16)
        for _ in 0..<14 { slots.take("http://hung:80") }
        #expect(!slots.hasRoom("http://hung:80", now: 0))
        #expect(slots.hasRoom("http://other:80", now: 0))
        let wasFull = slots.release("http://hung:80", slow: true, now: 1_000)
        #expect(wasFull)
        // 13 in flight, and it is slow now: no more until it is below 4.
        #expect(!slots.hasRoom("http://hung:80", now: 1_001))
        for _ in 0..<9 { slots.release("http://hung:80", slow: true, now: 2_000) }
        #expect(!slots.hasRoom("http://hung:80", now: 2_001))  // 4 in flight: the slow limit
        slots.release("http://hung:80", now: 2_002)
        #expect(slots.hasRoom("http://hung:80", now: 2_003))  // 3 in flight, below it
        slots.take("http://hung:80")
        #expect(!slots.hasRoom("http://hung:80", now: 2_004))
        #expect(slots.hasRoom("http://hung:80", now: 2_000 + DestinationSlots.slowForMs + 1))
    }

    @Test(arguments: [
        ("http://Example.COM/a/{button}", "http://example.com:80"),
        ("http://example.com", "http://example.com:80"),
        ("https://example.com/x?y=1", "https://example.com:443"),
        ("https://example.com:443/x", "https://example.com:443"),
        ("http://example.com:8123/api", "http://example.com:8123"),
        ("http://example.com:/x", "http://example.com:80"),
        ("http://10.0.0.5:1880#frag", "http://10.0.0.5:1880"),
        ("http://[::1]/x", "http://[::1]:80"),
        ("http://[::1]:8080/x", "http://[::1]:8080"),
        ("https://[fe80::1%25eth0]", "https://[fe80::1%25eth0]:443"),
        ("http://user@host:9/x", "http://host:9"),
    ])
    func aWebhooksDestinationIsSchemeHostAndPort(url: String, destination: String) {
        #expect(DestinationSlots.destination(webhook: url) == destination)
    }

    @Test func schemesAndPortsAreDistinctDestinations() {
        let urls = ["http://h/a", "https://h/a", "http://h:81/a", "http://g/a"]
        #expect(Set(urls.map { DestinationSlots.destination(webhook: $0) }).count == 4)
        #expect(DestinationSlots.destination(webhook: "http://h/a") == DestinationSlots.destination(webhook: "http://h:80/b"))
    }
}
