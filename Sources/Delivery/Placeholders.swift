import JSON

/// The event facts a handler's placeholders stand for (SPEC §5): a script's args use them
/// whole (`{button}`), a webhook's body and header values use them inside any string.
/// Known placeholders: `{button}`, `{type}`, `{seq}`, `{t}`, `{face}`, `{option}`, `{label}`,
/// `{id}`; any other braces (`{unknown}`, Home Assistant's `{{ states('x') }}`) are text.
public struct Placeholders: Sendable, Equatable {
    /// The button or sheet id the event came from.
    public var button: String
    /// The event type, e.g. `tap`.
    public var type: String
    public var seq: Int64
    public var t: Int64
    /// The decimal face number, or "" when the event has none.
    public var face: String
    /// The chosen sheet option, or "" when none.
    public var option: String
    /// The button's or sheet's label at event time, or "" when none.
    public var label: String
    /// The event id, e.g. `evt_…`.
    public var id: String

    public init(
        button: String = "", type: String = "", seq: Int64 = 0, t: Int64 = 0, face: String = "",
        option: String = "", label: String = "", id: String = ""
    ) {
        self.button = button
        self.type = type
        self.seq = seq
        self.t = t
        self.face = face
        self.option = option
        self.label = label
        self.id = id
    }

    /// Reads them from an event object as the server writes it; a missing field (or a value of
    /// the wrong JSON type) leaves its placeholder "" (or 0). The label is not in the event.
    public init(event: JSONValue, label: String = "") {
        self.init(label: label)
        if case .string(let v)? = event["button"] ?? event["sheet"] { button = v }
        if case .string(let v)? = event["type"] { type = v }
        if case .int(let v)? = event["seq"] { seq = v }
        if case .int(let v)? = event["t"] { t = v }
        if case .int(let v)? = event["data"]?["face"] { face = String(v) }
        if case .string(let v)? = event["data"]?["option"] { option = v }
        if case .string(let v)? = event["id"] { id = v }
    }

    /// An argument that is exactly one placeholder becomes its value; any other stays as it
    /// is. Scripts get argv this way: no splitting, no partial expansion.
    public func substitute(_ argument: String) -> String {
        value(of: argument) ?? argument
    }

    /// Every placeholder inside `text` replaced by its value, once, left to right. Whatever is
    /// not a known placeholder stays as it is, and a value's own braces are never expanded
    /// again (a label of `{id}` is sent as `{id}`).
    public func interpolate(_ text: String) -> String {
        let open = UInt8(ascii: "{"), close = UInt8(ascii: "}")
        guard text.utf8.contains(open) else { return text }
        // Braces are ASCII, so cutting the UTF-8 bytes at them never splits a character.
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == open,
                let end = bytes[(i + 1)...].prefix(Self.longestName + 1).firstIndex(of: close),
                let value = value(of: String(decoding: bytes[i...end], as: UTF8.self))
            {
                result.append(contentsOf: value.utf8)
                i = end + 1
            } else {
                result.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The length of the longest name (`option`, `button`): a `}` further away ends no placeholder.
    private static let longestName = 6

    /// The value of `placeholder` (braces included), or nil when it is not a known one.
    private func value(of placeholder: String) -> String? {
        switch placeholder {
        case "{button}": button
        case "{type}": type
        case "{seq}": String(seq)
        case "{t}": String(t)
        case "{face}": face
        case "{option}": option
        case "{label}": label
        case "{id}": id
        default: nil
        }
    }
}
