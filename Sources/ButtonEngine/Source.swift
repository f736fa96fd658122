/// What an event comes from and what a handler belongs to: a button or a sheet, by id.
///
/// The one identity every layer uses unchanged: the engine's events, handlers, stored rows
/// (as `stored`, `"button:door"`), delivery facts, placeholders and MQTT topics.
public enum Source: Sendable, Hashable {
    case button(String)
    case sheet(String)

    /// The button's or sheet's id.
    public var id: String {
        switch self {
        case .button(let id), .sheet(let id): id
        }
    }

    /// `button` or `sheet`: the key of the id in an event's JSON.
    public var kind: String {
        switch self {
        case .button: "button"
        case .sheet: "sheet"
        }
    }

    /// `"button:door"` or `"sheet:s1"`, as the store keys it.
    public var stored: String { kind + ":" + id }

    public init?(stored: String) {
        if stored.hasPrefix("button:") {
            self = .button(String(stored.dropFirst(7)))
        } else if stored.hasPrefix("sheet:") {
            self = .sheet(String(stored.dropFirst(6)))
        } else {
            return nil
        }
    }

    /// The button's id, nil for a sheet (a store's `button` column).
    public var button: String? {
        if case .button(let id) = self { id } else { nil }
    }

    /// The sheet's id, nil for a button (a store's `sheet` column).
    public var sheet: String? {
        if case .sheet(let id) = self { id } else { nil }
    }

    /// From a row's two columns, one of which is set.
    public init(button: String?, sheet: String?) {
        self = button.map { .button($0) } ?? .sheet(sheet ?? "")
    }
}
