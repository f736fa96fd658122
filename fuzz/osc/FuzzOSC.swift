// libFuzzer entry point for the OSC input path buttond owns (SPEC §10): arbitrary bytes as
// a UDP datagram (liblo's decoder behind OSCCodec, bundles too), as a TCP stream in OSC 1.0
// size-prefixed framing and in SLIP, fed in chunks the first byte picks. Every message that
// decodes must encode and decode again. Any crash, trap or sanitizer report is a finding.
// Built by fuzz/run.sh against the OSC, ThreadSupport and Platform modules.
@testable import OSC

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    check(OSCCodec.decode(bytes))
    guard let first = bytes.first else { return 0 }
    let chunk = Int(first % 17) + 1
    var length = StreamFraming.length([])
    var slip = StreamFraming.slip(SLIP.Decoder(maxPacket: 512))
    var offset = 1
    while offset < bytes.count {
        let piece = bytes[offset..<min(bytes.count, offset + chunk)]
        offset += chunk
        for packet in length.feed(piece) ?? [] { check(OSCCodec.decode(packet)) }
        for packet in slip.feed(piece) ?? [] { check(OSCCodec.decode(packet)) }
    }
    return 0
}

private func check(_ messages: [OSCMessage]?) {
    for message in messages ?? [] {
        precondition(OSCCodec.decode(OSCCodec.encode(message)) != nil, "a decoded message did not survive encoding")
    }
}
