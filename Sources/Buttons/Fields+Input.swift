import ButtonEngine

/// An input's members (`t`, `inside`, `pointer`) read the one way every JSON body is read: the
/// HTTP routes and MQTT commands both call these, so an input refused over one is refused over
/// the other, with the same words. OSC messages, whose arguments are typed, keep to the same
/// limits (`minT`, `maxT`).
extension Fields {
    /// 9999-12-31T23:59:59.999Z: later times have no four-digit ISO-8601 year.
    package static let maxT: Int64 = 253_402_300_799_999

    /// Below this a `t` is before 1973: almost surely seconds (`date +%s`), not milliseconds.
    package static let minT: Int64 = 100_000_000_000

    /// `t`, if given: integer milliseconds since the epoch. One in seconds is refused with
    /// how to send milliseconds, rather than dated 1970 (or a bare `out_of_order`).
    package mutating func time() throws(ButtonsError) -> Int64? {
        guard let t = try int("t", in: 0...Self.maxT) else { return nil }
        return try Self.milliseconds(t, field: path("t"))
    }

    /// `t` (already within `0...maxT`) unless it looks like seconds: the one rule for a `t`
    /// sent over HTTP, MQTT or OSC.
    package static func milliseconds(_ t: Int64, field: String) throws(ButtonsError) -> Int64 {
        guard t >= minT else {
            throw ButtonsError(
                .invalid, code: "t_not_milliseconds",
                message: "\(field) is \(t), which looks like seconds (or is before 1973): t is milliseconds "
                    + "since the Unix epoch, as date +%s%3N gives in a shell and Date.now() in a browser; or leave it out for now",
                details: ["field": .string(field)])
        }
        return t
    }

    /// Reads `pointer` as given by a browser (a number) or a client (a string).
    package mutating func pointer() throws(ButtonsError) -> String? {
        switch raw("pointer") {
        case nil: return nil
        case .int(let id)?: return String(id)
        case .double(let d)? where d == d.rounded() && abs(d) < 1e15: return String(Int64(d))
        case .string(let s)?:
            guard s.count <= 64 else { throw ButtonsError.invalid(path("pointer"), "pointer is longer than 64 characters") }
            return s
        case let other?:
            throw ButtonsError.badRequest("\(path("pointer")) must be a string or an integer, not \(other.typeName)", field: path("pointer"))
        }
    }

    /// One input's members (`t`, `inside`, `pointer`) for `kind`.
    package mutating func input(_ kind: InputKind) throws(ButtonsError) -> Input {
        var input = Input(kind, t: try time())
        switch kind {
        case .down:
            input.pointer = try pointer()
        case .move:
            guard let inside = try bool("inside") else {
                throw ButtonsError.invalid(path("inside"), "\(path("inside")) is required for a move")
            }
            input.inside = inside
            input.pointer = try pointer()
        case .up:
            input.inside = try bool("inside")
            input.pointer = try pointer()
        case .cancel:
            input.pointer = try pointer()
        }
        return input
    }
}
