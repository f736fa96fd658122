import JSON

/// Reads the members of one JSON object for a handler: a wrong JSON type is 400, a value out
/// of range or an unknown member is 422, and both name the field (with a path like
/// `faces[1].label`), so a typo such as `longpressMs` never passes silently.
package struct Fields {
    private let members: [String: JSONValue]
    private let prefix: String
    private var seen: Set<String> = []

    package init(_ value: JSONValue, path: String = "") throws(ButtonsError) {
        guard case .object(let members) = value else {
            throw ButtonsError.badRequest("\(path.isEmpty ? "the body" : path) must be a JSON object", field: path.isEmpty ? nil : path)
        }
        self.members = members
        self.prefix = path.isEmpty ? "" : path + "."
    }

    package func path(_ key: String) -> String { prefix + key }

    package var keys: Dictionary<String, JSONValue>.Keys { members.keys }

    package func has(_ key: String) -> Bool {
        if case .null? = members[key] { return false }
        return members[key] != nil
    }

    /// Only members present are marked seen (`finish` asks about no other): a press's `{}` is
    /// read without hashing a key into `seen` for each field it may have.
    private mutating func value(_ key: String) -> JSONValue? {
        guard !members.isEmpty, let member = members[key] else { return nil }
        seen.insert(key)
        if case .null = member { return nil }
        return member
    }

    private func wrongType(_ key: String, _ expected: String, _ got: JSONValue) -> ButtonsError {
        .badRequest("\(path(key)) must be \(expected), not \(got.typeName)", field: path(key))
    }

    package mutating func raw(_ key: String) -> JSONValue? { value(key) }

    /// Marks a member as allowed without reading it (read-only members echoed back by clients).
    package mutating func ignore(_ key: String) {
        if members[key] != nil { seen.insert(key) }
    }

    package mutating func string(_ key: String, maxLength: Int = 256) throws(ButtonsError) -> String? {
        guard let v = value(key) else { return nil }
        guard case .string(let s) = v else { throw wrongType(key, "a string", v) }
        guard s.count <= maxLength else { throw ButtonsError.invalid(path(key), "\(path(key)) is longer than \(maxLength) characters") }
        return s
    }

    package mutating func int(_ key: String, in range: ClosedRange<Int64>) throws(ButtonsError) -> Int64? {
        guard let v = value(key) else { return nil }
        let number: Int64
        switch v {
        case .int(let i): number = i
        case .double(let d) where d == d.rounded() && abs(d) < 9e15: number = Int64(d)
        case .double: throw ButtonsError.invalid(path(key), "\(path(key)) must be a whole number")
        default: throw wrongType(key, "an integer", v)
        }
        guard range.contains(number) else {
            throw ButtonsError.invalid(path(key), "\(path(key)) must be between \(range.lowerBound) and \(range.upperBound), not \(number)")
        }
        return number
    }

    package mutating func bool(_ key: String) throws(ButtonsError) -> Bool? {
        guard let v = value(key) else { return nil }
        guard case .bool(let b) = v else { throw wrongType(key, "true or false", v) }
        return b
    }

    package mutating func array(_ key: String) throws(ButtonsError) -> [JSONValue]? {
        guard let v = value(key) else { return nil }
        guard case .array(let a) = v else { throw wrongType(key, "an array", v) }
        return a
    }

    package mutating func object(_ key: String) throws(ButtonsError) -> Fields? {
        guard let v = value(key) else { return nil }
        return try Fields(v, path: path(key))
    }

    package mutating func choice<T: RawRepresentable<String> & CaseIterable>(_ key: String, _ type: T.Type) throws(ButtonsError) -> T? {
        guard let s = try string(key) else { return nil }
        guard let v = T(rawValue: s) else {
            let allowed = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw ButtonsError.invalid(path(key), "\(path(key)) must be one of \(allowed), not '\(s)'")
        }
        return v
    }

    /// A name matching `^[a-z0-9][a-z0-9._-]{0,63}$`.
    package mutating func name(_ key: String) throws(ButtonsError) -> String? {
        guard let s = try string(key, maxLength: 1024) else { return nil }
        guard Names.isValid(s) else {
            throw ButtonsError.invalid(path(key), "\(path(key)) must match ^[a-z0-9][a-z0-9._-]{0,63}$, not '\(s.prefix(80))'")
        }
        return s
    }

    /// 422 for any member not read: unknown fields are refused, not ignored.
    package func finish() throws(ButtonsError) {
        // `seen` holds only members present: as many means every one was read (a press's `{}`
        // sorts no keys).
        guard seen.count < members.count else { return }
        for key in members.keys.sorted() where !seen.contains(key) {
            throw ButtonsError.invalid(path(key), "unknown field '\(path(key))'")
        }
    }
}

/// The rule for button, sheet, option and script names.
package enum Names {
    package static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count) else { return false }
        for (i, b) in bytes.enumerated() {
            let lowerOrDigit = (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
            if i == 0 ? !lowerOrDigit : !(lowerOrDigit || b == 0x2E || b == 0x5F || b == 0x2D) { return false }
        }
        return true
    }
}
