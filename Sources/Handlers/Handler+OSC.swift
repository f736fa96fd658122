import ButtonStore
import Buttons
import Delivery
import JSON
import OSC

/// An OSC handler as the API reads and checks it (SPEC §10).
extension Handler {
    package static let oscPlaceholders: Set<String> = ["{button}", "{type}", "{seq}", "{t}", "{face}", "{option}", "{label}", "{id}"]

    /// `osc` of a new handler: its message, attempts and expiry.
    package static func oscAction(_ o: inout Fields, context: Context) throws(ButtonsError) -> (Action, Int64, Int64?) {
        guard let url = try o.string("url", maxLength: 2048) else { throw ButtonsError.invalid("osc.url", "osc.url is required") }
        guard let address = try o.string("address", maxLength: 1024) else {
            throw ButtonsError.invalid("osc.address", "osc.address is required (an OSC address such as /cue/{option}/start)")
        }
        var osc = OSCAction(url: url, address: address)
        try applyOSC(&o, to: &osc, context: context)
        let attempts = try o.int("maxAttempts", in: 1...20) ?? 7
        let expire = try o.int("expireAfterMs", in: 1000...604_800_000)
        try o.finish()
        return (.osc(osc), attempts, expire)
    }

    /// PATCH of `osc`: the members given replace the handler's.
    package mutating func patchOSC(_ o: inout Fields, context: Context) throws(ButtonsError) {
        guard case .osc(var osc) = action else { throw ButtonsError.invalid("osc", "this handler is a \(kind); create a new handler for OSC") }
        if let url = try o.string("url", maxLength: 2048) { osc.url = url }
        if let address = try o.string("address", maxLength: 1024) { osc.address = address }
        try Self.applyOSC(&o, to: &osc, context: context)
        if let v = try o.int("maxAttempts", in: 1...20) { maxAttempts = v }
        if o.keys.contains("expireAfterMs") { expireAfterMs = try o.int("expireAfterMs", in: 1000...604_800_000) }  // null removes it
        o.ignore("expireAfterMs")
        try o.finish()
        action = .osc(osc)
    }

    /// `args` and `slip`, then the whole message checked.
    private static func applyOSC(_ o: inout Fields, to osc: inout OSCAction, context: Context) throws(ButtonsError) {
        if let list = try o.array("args") { osc.args = try oscArguments(list) }
        if let slip = try o.bool("slip") { osc.slip = slip }
        try validate(osc: osc, destinations: context.destinations)
    }

    package static func validate(osc: OSCAction, destinations: DestinationRules) throws(ButtonsError) {
        guard let destination = OSCClient.Destination(url: osc.url) else {
            throw ButtonsError.invalid("osc.url", "osc.url must be osc.udp://HOST:PORT or osc.tcp://HOST:PORT (no user, no path)")
        }
        if let reason = destinations.refusal(literalHost: destination.host, port: destination.port) {
            throw ButtonsError.invalid("osc.url", "osc.url must not point at \(reason) (\(destination.host))")
        }
        if osc.slip && destination.transport != .tcp {
            throw ButtonsError.invalid("osc.slip", "osc.slip frames TCP (OSC 1.1); it needs an osc.tcp:// URL")
        }
        let bytes = osc.address.utf8
        guard bytes.first == UInt8(ascii: "/"), !bytes.contains(where: { $0 <= 0x20 || $0 == UInt8(ascii: "#") || $0 == 0x7F }) else {
            throw ButtonsError.invalid("osc.address", "osc.address must start with / and hold no spaces, control characters or #")
        }
    }

    package static func oscArguments(_ list: [JSONValue]) throws(ButtonsError) -> [OSCAction.Argument] {
        guard list.count <= 32 else { throw ButtonsError.invalid("osc.args", "osc.args holds at most 32 arguments") }
        var args: [OSCAction.Argument] = []
        for (index, item) in list.enumerated() {
            var fields = try Fields(item, path: "osc.args[\(index)]")
            guard let type = try fields.string("type", maxLength: 1), OSCAction.types.contains(type) else {
                throw ButtonsError.invalid(fields.path("type"), "\(fields.path("type")) must be one of \(OSCAction.types.joined(separator: ", "))")
            }
            let value = fields.raw("value") ?? .null
            try checkOSC(value, type: type, field: fields.path("value"))
            try fields.finish()
            args.append(OSCAction.Argument(type: type, value: value))
        }
        return args
    }

    /// A value fits its type: a number (an integer for `i`/`h`), a string for `s`, nothing for
    /// `T F N`, or for the numeric types a string that is exactly one placeholder.
    private static func checkOSC(_ value: JSONValue, type: String, field: String) throws(ButtonsError) {
        let placeholder: Bool
        if case .string(let text) = value { placeholder = oscPlaceholders.contains(text) } else { placeholder = false }
        switch (type, value) {
        case ("i", .int(let v)) where Int64(Int32.min)...Int64(Int32.max) ~= v: return
        case ("h", .int), ("f", .int), ("f", .double), ("d", .int), ("d", .double): return
        case ("i", .string), ("h", .string), ("f", .string), ("d", .string): if placeholder { return }
        case ("s", .string(let text)) where text.utf8.count <= 1024 && !text.utf8.contains(0): return
        case ("T", .null), ("F", .null), ("N", .null): return
        default: break
        }
        let expected: String =
            switch type {
            case "i": "a 32-bit integer or exactly one placeholder such as {face}"
            case "h": "an integer or exactly one placeholder such as {seq}"
            case "f", "d": "a number or exactly one placeholder such as {face}"
            case "s": "a string of at most 1024 bytes with no NUL"
            default: "absent (\(type) carries no value)"
            }
        throw ButtonsError.invalid(field, "\(field) must be \(expected)")
    }
}
