import CurlHTTP
import Testing
import TestSupport

/// Cutting server-sent-event blocks out of bytes however the network splits them.
@Suite struct EventMessageTests {
    static let wire = "id: 7\nevent: registry\ndata: {\"a\": 1}\n\n: heartbeat\n\ndata:no space\ndata:  two spaces\n\nid:8\n\n"
    static let expected = [
        EventMessage(id: "7", event: "registry", data: "{\"a\": 1}"),
        EventMessage(data: "", comment: true),
        EventMessage(data: "no space\n two spaces"),
        EventMessage(id: "8"),
    ]

    @Test func wholeBlocks() {
        var parser = EventMessage.Parser()
        #expect(parser.take(Array(Self.wire.utf8)) == Self.expected)
        #expect(parser.take([]) == [])
    }

    @Test func aBlockIsHeldUntilItsBlankLine() {
        var parser = EventMessage.Parser()
        #expect(parser.take(Array("data: x\n".utf8)) == [])
        #expect(parser.take(Array("\n".utf8)) == [EventMessage(data: "x")])
    }

    /// Random cuts (seeded: a failure names its seed), one byte at a time included.
    @Test(arguments: 0..<50)
    func anySplitGivesTheSameBlocks(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let bytes = Array(Self.wire.utf8)
        var parser = EventMessage.Parser()
        var messages: [EventMessage] = []
        var at = 0
        while at < bytes.count {
            let step = seed == 0 ? 1 : 1 + random.below(12)
            messages += parser.take(bytes[at..<min(bytes.count, at + step)])
            at += step
        }
        #expect(messages == Self.expected, "seed \(seed)")
    }
}
