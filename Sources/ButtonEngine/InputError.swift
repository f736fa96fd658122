/// Why an input was refused; the server renders it as a 409 with `code`.
///
/// A refused input leaves the machine unchanged, so a batch can be all or nothing.
public enum InputError: Error, Equatable, Sendable {
    /// The input's `t` is earlier than the button's last input.
    case outOfOrder(lastInputT: Int64)
    /// A down while the button is held.
    case alreadyDown
    /// A move, up or cancel while the button is not held.
    case notDown
    /// Any input for a button whose `enabled` is false.
    case disabled

    /// The API error code.
    public var code: String {
        switch self {
        case .outOfOrder: "out_of_order"
        case .alreadyDown: "already_down"
        case .notDown: "not_down"
        case .disabled: "button_disabled"
        }
    }

    /// A human-readable message for the API error body.
    public var message: String {
        switch self {
        case .outOfOrder(let last): "t is earlier than the button's last input (\(last))"
        case .alreadyDown: "the button is already held"
        case .notDown: "the button is not held"
        case .disabled: "the button is disabled"
        }
    }
}
