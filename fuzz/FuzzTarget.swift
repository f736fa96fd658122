// libFuzzer entry point: arbitrary bytes drive the strict JSON parser and, split into a
// sequence of inputs, a gesture engine. Any crash, trap or sanitizer report is a finding.
// Built by fuzz/run.sh together with the sources of MicroHTTP's JSON parser and ButtonEngine.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let value = try? JSONParser.parse(bytes, maxDepth: 32) {
        _ = JSONWriter.encode(value)
    }
    guard size >= 4 else { return 0 }
    let config = ButtonConfig(
        kind: bytes[0] & 1 == 0 ? .push : .toggle, longPressMs: 50 + Int64(bytes[1]) * 10,
        multiTapMs: 50 + Int64(bytes[2]) * 5, maxTaps: Int(bytes[3] % 5) + 1,
        repeatMs: bytes[0] & 2 == 0 ? 0 : 50 + Int64(bytes[1]), maxHoldMs: 1000 + Int64(bytes[2]) * 100)
    var machine = ButtonMachine(config: config)
    var t: Int64 = 1_000_000
    var index = 4
    while index + 1 < size {
        let op = bytes[index]
        let step = Int64(bytes[index + 1]) * Int64(op >> 4 == 0 ? 1 : 37)
        index += 2
        t += (op & 0x08 != 0) ? -step : step
        let kinds: [InputKind] = [.down, .move, .up, .cancel]
        let input = Input(kinds[Int(op & 3)], t: op & 0x40 != 0 ? nil : t, inside: op & 0x04 == 0, pointer: op & 0x80 != 0 ? "p" : nil)
        _ = try? machine.apply(input, now: t)
        if op & 0x20 != 0 { _ = machine.fireDue(now: t + step) }
        if op == 0xFF { _ = machine.setFace(Int(step & 1), now: t) }
    }
    _ = machine.advance(to: t + 10_000_000)
    return 0
}
