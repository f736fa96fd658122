import ButtonEngine
import JSON

/// A button as the registry knows it: the engine's timing config plus what the panel shows
/// (label, faces, flip animation, grid place). Parsed from and rendered to the API's JSON.
package struct ButtonDefinition: Sendable, Equatable {
    package struct Face: Sendable, Equatable {
        package var label: String
        package var color: String?
    }

    package enum Transition: String, CaseIterable, Sendable {
        case flipFromLeft = "flip-from-left", flipFromRight = "flip-from-right", curlUp = "curl-up"
        case curlDown = "curl-down", crossDissolve = "cross-dissolve", none
    }

    package enum Curve: String, CaseIterable, Sendable {
        case easeInOut = "ease-in-out", easeIn = "ease-in", easeOut = "ease-out", linear
    }

    package struct Flip: Sendable, Equatable {
        package var transition: Transition = .flipFromLeft
        package var curve: Curve = .easeInOut
        package var durationMs: Int64 = 400
    }

    package var id: String
    package var label: String
    package var config = ButtonConfig()
    package var faces: [Face] = Self.defaultFaces
    package var flip = Flip()
    package var order: Int64?
    package var group: String?
    /// The key's colour (`#rrggbb`); a toggle's faces keep their own.
    package var color: String?
    /// How many grid cells the key takes.
    package var size: Size = .one
    /// A live line shown on the key ("ON AIR", "21.5 °C"): how other systems put state on it.
    package var status: String?
    /// A name from the panel's icon set (`GET /api/v1/icons`).
    package var icon: String?

    package enum Size: String, CaseIterable, Sendable {
        case one = "1x1", wide = "2x1", tall = "1x2", big = "2x2"
    }

    package static let defaultFaces = [Face(label: "Off"), Face(label: "On")]

    /// The colour the key shows on `face`: a toggle's face's own, else the key's (SPEC §10).
    package func shownColor(face: Int) -> String? {
        if config.kind == .toggle, faces.indices.contains(face), let color = faces[face].color { return color }
        return color
    }

    /// A new button from a create body (`id` required); an `icon` must be one of `icons`, the
    /// server's icon set (`Registry.icons`; empty: any well-formed name is taken).
    package static func create(from json: JSONValue, icons: Set<String>) throws(ButtonsError) -> ButtonDefinition {
        var fields = try Fields(json)
        guard let id = try fields.name("id") else { throw ButtonsError.invalid("id", "id is required") }
        var definition = ButtonDefinition(id: id, label: id)
        try definition.apply(&fields, creating: true, icons: icons)
        return definition
    }

    /// A copy with a PATCH body applied (only the members given change); `self` is left as it
    /// is if the patch is refused.
    package func patched(with json: JSONValue, icons: Set<String>) throws(ButtonsError) -> ButtonDefinition {
        var copy = self
        var fields = try Fields(json)
        if let id = try fields.name("id"), id != self.id {
            throw ButtonsError.invalid("id", "a button's id cannot change")
        }
        try copy.apply(&fields, creating: false, icons: icons)
        return copy
    }

    private mutating func apply(_ fields: inout Fields, creating: Bool, icons: Set<String>) throws(ButtonsError) {
        fields.ignore("state")
        fields.ignore("health")
        if let label = try fields.string("label", maxLength: 64) { self.label = label }
        if let kind = try fields.choice("kind", ButtonKind.self) { config.kind = kind }
        if let v = try fields.int("longPressMs", in: 50...60_000) { config.longPressMs = v }
        if let v = try fields.int("multiTapMs", in: 50...5_000) { config.multiTapMs = v }
        if let v = try fields.int("maxTaps", in: 1...5) { config.maxTaps = Int(v) }
        if let v = try fields.int("repeatMs", in: 0...60_000) {
            guard v == 0 || v >= 50 else { throw ButtonsError.invalid("repeatMs", "repeatMs must be 0 (off) or between 50 and 60000") }
            config.repeatMs = v
        }
        if let v = try fields.int("maxHoldMs", in: 1_000...3_600_000) { config.maxHoldMs = v }
        try applyGuards(&fields, creating: creating)
        if let faces = try fields.array("faces") {
            guard faces.count == 2 else { throw ButtonsError.invalid("faces", "faces must have exactly two entries") }
            var parsed: [Face] = []
            for (i, face) in faces.enumerated() {
                var f = try Fields(face, path: "faces[\(i)]")
                guard let label = try f.string("label", maxLength: 64) else {
                    throw ButtonsError.invalid(f.path("label"), "\(f.path("label")) is required")
                }
                let color = try f.string("color", maxLength: 32)
                if let color, !Self.isSafeColor(color) {
                    throw ButtonsError.invalid(f.path("color"), "\(f.path("color")) must be a CSS color such as #ff8800 or teal")
                }
                try f.finish()
                parsed.append(Face(label: label, color: color))
            }
            self.faces = parsed
        }
        if var f = try fields.object("flip") {
            if let v = try f.choice("transition", Transition.self) { flip.transition = v }
            if let v = try f.choice("curve", Curve.self) { flip.curve = v }
            if let v = try f.int("durationMs", in: 0...5_000) { flip.durationMs = v }
            try f.finish()
        }
        if fields.has("order") { order = try fields.int("order", in: -1_000_000_000...1_000_000_000) } else { fields.ignore("order") }
        if fields.has("group") { group = try fields.string("group", maxLength: 64) } else { fields.ignore("group") }
        try applyLook(&fields, icons: icons)
        try fields.finish()
    }

    /// The guards (SPEC §3, §4 "Guards"): `minPressMs`, `lockoutMs`, `confirmMs` (each 0 for
    /// off or within its range) and `enabled`. A button with `lockoutMs` or `confirmMs` fires
    /// on single taps only, so its `maxTaps` is 1: taken as that when not given on create,
    /// refused naming `maxTaps` when given otherwise, and when a PATCH adds such a guard to a
    /// button whose `maxTaps` is more than 1 without saying `maxTaps: 1` (a PATCH must not
    /// quietly change what the button fires: its double-tap handlers would stop firing).
    private mutating func applyGuards(_ fields: inout Fields, creating: Bool) throws(ButtonsError) {
        let tapsGiven = fields.has("maxTaps")
        if let v = try Self.guardTime(&fields, "minPressMs", 10...2_000) { config.minPressMs = v }
        if let v = try Self.guardTime(&fields, "lockoutMs", 50...60_000) { config.lockoutMs = v }
        if let v = try Self.guardTime(&fields, "confirmMs", 500...60_000) { config.confirmMs = v }
        if let v = try Self.asInvalid({ () throws(ButtonsError) in try fields.bool("enabled") }) { config.enabled = v }
        guard config.firesSingleTapsOnly, config.maxTaps != 1 else { return }
        let guardName = config.confirmMs > 0 ? "confirmMs" : "lockoutMs"
        if tapsGiven {
            throw ButtonsError.invalid(
                "maxTaps", "maxTaps must be 1 with \(guardName): a guarded button fires on single taps only")
        }
        if creating {
            config.maxTaps = 1
        } else {
            throw ButtonsError.invalid(
                "maxTaps",
                "maxTaps is \(config.maxTaps) and \(guardName) fires on single taps only: send \"maxTaps\": 1 with it")
        }
    }

    /// A guard's time: 0 (off) or within `range`, 422 naming the field otherwise.
    private static func guardTime(_ fields: inout Fields, _ key: String, _ range: ClosedRange<Int64>) throws(ButtonsError) -> Int64? {
        guard let v = try asInvalid({ () throws(ButtonsError) in try fields.int(key, in: 0...range.upperBound) }) else { return nil }
        guard v == 0 || v >= range.lowerBound else {
            throw ButtonsError.invalid(
                key, "\(key) must be 0 (off) or between \(range.lowerBound) and \(range.upperBound), not \(v)")
        }
        return v
    }

    /// A guard's value of the wrong JSON type is 422 naming it, as one out of range is (issue
    /// 39: an operator's panel shows either beside the field).
    private static func asInvalid<T>(_ read: () throws(ButtonsError) -> T) throws(ButtonsError) -> T {
        do throws(ButtonsError) {
            return try read()
        } catch where error.kind == .malformed {
            throw ButtonsError(.invalid, code: "invalid_value", message: error.message, details: error.details)
        }
    }

    /// `color`, `icon`, `size` and `status`; `null` clears the colour, the icon and the status.
    package mutating func applyLook(_ fields: inout Fields, icons names: Set<String>) throws(ButtonsError) {
        if fields.keys.contains("color") {
            color = try fields.string("color", maxLength: 7)
            if let color, !Self.isHexColor(color) {
                throw ButtonsError.invalid("color", "color must be #rrggbb, such as #ff8800")
            }
        }
        if let v = try fields.choice("size", Size.self) { size = v }
        if fields.keys.contains("icon") {
            icon = try fields.string("icon", maxLength: 32)
            if let icon {
                let wellFormed = !icon.isEmpty && icon.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
                guard wellFormed, names.isEmpty || names.contains(icon) else {
                    throw ButtonsError.invalid("icon", "icon must be one of GET /api/v1/icons (\(names.sorted().prefix(8).joined(separator: ", "))…)")
                }
            }
        }
        if fields.keys.contains("status") {
            status = try fields.string("status", maxLength: 32)
            if let status, status.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw ButtonsError.invalid("status", "status must not hold control characters")
            }
        }
    }

    /// `#` and six hex digits.
    static func isHexColor(_ color: String) -> Bool {
        let bytes = Array(color.utf8)
        return bytes.count == 7 && bytes[0] == UInt8(ascii: "#")
            && bytes.dropFirst().allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Hex colours, rgb()/hsl() forms and names: nothing that could break out of a CSS value.
    package static func isSafeColor(_ color: String) -> Bool {
        !color.isEmpty && color.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == 0x23 || b == 0x28 || b == 0x29 || b == 0x2C || b == 0x2E || b == 0x25 || b == 0x20 || b == 0x2D
        }
    }

    /// The definition as JSON (what GET shows without `state`, and what the store keeps).
    package var json: JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "label": .string(label), "kind": .string(config.kind.rawValue),
            "longPressMs": .int(config.longPressMs), "multiTapMs": .int(config.multiTapMs),
            "maxTaps": .int(Int64(config.maxTaps)), "repeatMs": .int(config.repeatMs), "maxHoldMs": .int(config.maxHoldMs),
            "minPressMs": .int(config.minPressMs), "lockoutMs": .int(config.lockoutMs), "confirmMs": .int(config.confirmMs),
            "enabled": .bool(config.enabled),
        ]
        if config.kind == .toggle || faces != Self.defaultFaces || flip != Flip() {
            object["faces"] = .array(
                faces.map { face in
                    var f: [String: JSONValue] = ["label": .string(face.label)]
                    if let color = face.color { f["color"] = .string(color) }
                    return .object(f)
                })
            object["flip"] = [
                "transition": .string(flip.transition.rawValue), "curve": .string(flip.curve.rawValue),
                "durationMs": .int(flip.durationMs),
            ]
        }
        if let order { object["order"] = .int(order) }
        if let group { object["group"] = .string(group) }
        if let color { object["color"] = .string(color) }
        if size != .one { object["size"] = .string(size.rawValue) }
        if let status { object["status"] = .string(status) }
        if let icon { object["icon"] = .string(icon) }
        return .object(object)
    }

    package func json(state: ButtonState) -> JSONValue {
        guard case .object(var object) = json else { return json }
        var live: [String: JSONValue] = [
            "held": .bool(state.held), "face": .int(Int64(state.face)), "tapCount": .int(Int64(state.tapCount)),
            "armed": .bool(state.armed),
        ]
        if let armedUntil = state.armedUntil { live["armedUntil"] = .int(armedUntil) }
        object["state"] = .object(live)
        return .object(object)
    }
}
