import JSON
import Platform

/// The event facts a handler's placeholders stand for (SPEC §5): a script's args use them
/// whole (`{button}`), a webhook's body and header values use them inside any string.
/// Known placeholders: `{button}`, `{type}`, `{seq}`, `{t}`, `{face}`, `{option}`, `{label}`,
/// `{id}`, `{index}`, `{option_label}`, `{face_label}`, `{by}`; any other braces (`{unknown}`, Home Assistant's `{{ states('x') }}`) are text.
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
    /// The chosen option's index (a `select`), or "" when none.
    public var index: String = ""
    /// The chosen option's label, or "" when none.
    public var optionLabel: String = ""
    /// The new face's label (a toggle), or "" when none.
    public var faceLabel: String = ""
    /// Who sent the input (a named token's name, `mqtt`, `osc`), or "" when the event has no `by`.
    public var by: String = ""

    /// Every placeholder, as a template writes it: what the panel's editor offers (through the
    /// API's vocabulary, so its copy cannot drift from this one).
    public static let names = [
        "{button}", "{type}", "{seq}", "{t}", "{face}", "{option}", "{label}", "{id}", "{index}", "{option_label}",
        "{face_label}", "{by}",
    ]

    /// The placeholders whose values are numbers: a body string that is exactly one of them
    /// is sent as a JSON number.
    public static let numeric: Set<String> = ["{face}", "{seq}", "{t}", "{index}"]

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

    /// `text` when it is exactly one numeric placeholder with a value: the number it stands for.
    public func number(_ text: String) -> Int64? {
        guard Self.numeric.contains(text), let value = value(of: text) else { return nil }
        return Int64(value)
    }

    /// An argument that is exactly one placeholder becomes its value; any other stays as it
    /// is. Scripts get argv this way: no splitting, no partial expansion.
    public func substitute(_ argument: String) -> String {
        value(of: argument) ?? argument
    }

    /// Every placeholder inside `text` replaced by its value, once, left to right. Whatever is
    /// not a known placeholder stays as it is, and a value's own braces are never expanded
    /// again (a label of `{id}` is sent as `{id}`).
    public func interpolate(_ text: String) -> String { interpolate(text, escaping: { $0 }) }

    /// A webhook URL with the placeholders after its authority (path, query, fragment) filled
    /// in, each value percent-encoded (a label "Living room" goes as `Living%20room`); scheme,
    /// user, host and port are left as they are.
    public func expandURL(_ url: String) -> String {
        guard url.utf8.contains(UInt8(ascii: "{")), let parts = URLParts(url) else { return url }
        return String(parts.head) + interpolate(String(parts.rest), escaping: Self.percentEncoded)
    }

    /// Every byte but the unreserved ones (RFC 3986: letters, digits, `-._~`) as `%XX`.
    static func percentEncoded(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            let unreserved = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
            if unreserved { out.unicodeScalars.append(Unicode.Scalar(byte)) } else {
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }

    private func interpolate(_ text: String, escaping: (String) -> String) -> String {
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
                result.append(contentsOf: escaping(value).utf8)
                i = end + 1
            } else {
                result.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The length of the longest name (`option_label`): a `}` further away ends no placeholder.
    private static let longestName = 12

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
        case "{index}": index
        case "{option_label}": optionLabel
        case "{face_label}": faceLabel
        case "{by}": by
        default: nil
        }
    }
}
