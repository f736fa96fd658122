import Foundation
import OSC
import Testing
import TestSupport

@Suite struct OSCCodecTests {
    @Test func roundTripsEveryType() {
        let message = OSCMessage(
            "/cue/1/start",
            [.int32(-7), .int64(1 << 40), .float(1.5), .double(2.25), .string("door"), .bool(true), .bool(false), .null])
        let bytes = OSCCodec.encode(message)
        #expect(bytes.count % 4 == 0)
        #expect(OSCCodec.decode(bytes) == [message])
        #expect(message.typeTags == "ihfdsTFN")
    }

    /// The packet the fuzzer found (fuzz/osc/regressions): an `i` argument last in the packet,
    /// which liblo allocates 4 bytes for, was read as the whole 8-byte `lo_arg` union
    /// (AddressSanitizer: heap-buffer-overflow); each type is now read at its own size.
    @Test func readsEachArgumentAtItsOwnSize() {
        let packet: [UInt8] = [0x2F, 0xFC, 0x01, 0x00, 0x2C, 0x69, 0x00, 0x00, 0x3F, 0x88, 0x00, 0x00]
        #expect(OSCCodec.decode(packet)?.first?.arguments == [.int32(0x3F88_0000)])
        let float = OSCCodec.encode(OSCMessage("/f", [.float(1.5)]))
        #expect(OSCCodec.decode(float)?.first?.arguments == [.float(1.5)])
    }

    @Test func unpacksBundles() {
        let a = OSCCodec.encode(OSCMessage("/a", [.int32(1)])), b = OSCCodec.encode(OSCMessage("/b"))
        var bundle = Array("#bundle\0".utf8) + [0, 0, 0, 0, 0, 0, 0, 1]
        for element in [a, b] { bundle += withUnsafeBytes(of: UInt32(element.count).bigEndian) { Array($0) } + element }
        #expect(OSCCodec.decode(bundle) == [OSCMessage("/a", [.int32(1)]), OSCMessage("/b")])
        #expect(OSCCodec.decode(Array(bundle.dropLast(4))) == nil)
    }

    @Test func refusesMalformed() {
        #expect(OSCCodec.decode([]) == nil)
        #expect(OSCCodec.decode(Array("/abc".utf8)) == nil)  // no terminator, no type tags
        let good = OSCCodec.encode(OSCMessage("/x", [.string("hello"), .int32(3)]))
        for cut in stride(from: 0, to: good.count, by: 1) { _ = OSCCodec.decode(Array(good.prefix(cut))) }
    }

    /// Random and mutated packets never crash the decoder (the fuzz target does this for
    /// longer), and whatever it accepts is stable: its messages encode and decode to the same
    /// messages. Seeded, so a failure replays.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func survivesRandomPackets(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var accepted = 0
        var refused = 0
        let seeds = [
            OSCCodec.encode(OSCMessage("/buttond/button/door", [.float(1)])),
            OSCCodec.encode(OSCMessage("/buttond/sheet/s/choose", [.string("a"), .int64(3), .double(1)])),
        ]
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0...96, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if round % 4 == 0 { bytes.replaceSubrange(0..<min(1, bytes.count), with: [UInt8(ascii: "/")]) }
            } else {
                bytes = seeds[round % seeds.count]
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
            }
            guard let messages = OSCCodec.decode(bytes) else {
                refused += 1
                continue
            }
            accepted += 1
            for message in messages where !message.arguments.contains(where: Self.isNaN) {
                // What is sent again is what was understood: the arguments of a type the
                // codec does not know are left out.
                let understood = OSCMessage(message.address, message.arguments.filter { if case .unsupported = $0 { false } else { true } })
                #expect(OSCCodec.decode(OSCCodec.encode(message)) == [understood], "seed \(seed) round \(round): \(bytes)")
            }
        }
        // Both ways were taken: the mutations are neither all harmless nor all fatal.
        #expect(accepted > 100 && refused > 100, "accepted \(accepted), refused \(refused)")
    }

    static func isNaN(_ argument: OSCArgument) -> Bool {
        switch argument {
        case .float(let value): value.isNaN
        case .double(let value): value.isNaN
        default: false
        }
    }

    @Test func slipFramesAndUnframes() {
        let packet: [UInt8] = [1, SLIP.end, 2, 0xDB, 3]
        var decoder = SLIP.Decoder()
        let framed = SLIP.encode(packet)
        #expect(decoder.feed(framed.prefix(3)) == [])
        #expect(decoder.feed(framed.dropFirst(3) + SLIP.encode([9])) == [packet, [9]])
    }

    @Test(arguments: [
        ("osc.udp://127.0.0.1:53000", OSCPeer.Transport.udp, "127.0.0.1", 53000),
        ("osc.tcp://[::1]:3037", .tcp, "::1", 3037),
        ("OSC.UDP://qlab.local:53000/", .udp, "qlab.local", 53000),
    ])
    func parsesURLs(url: String, transport: OSCPeer.Transport, host: String, port: Int) {
        #expect(OSCClient.Destination(url: url) == OSCClient.Destination(url: url))
        let parsed = OSCClient.Destination(url: url)
        #expect(parsed?.transport == transport && parsed?.host == host && parsed?.port == port)
    }

    @Test(arguments: ["http://x:1", "osc.udp://x", "osc.udp://x:0", "osc.udp://x:1/path", "osc.udp://u@x:1", "osc.udp://:1"])
    func refusesURLs(url: String) {
        #expect(OSCClient.Destination(url: url) == nil)
    }
}
