/// Every control event the engine (and the sheets) can emit, spelled as on the wire.
public enum EventType: String, Sendable, CaseIterable {
    case touchDown = "touch-down"
    case touchDragExit = "touch-drag-exit"
    case touchDragEnter = "touch-drag-enter"
    case touchUpInside = "touch-up-inside"
    case touchUpOutside = "touch-up-outside"
    case touchCancel = "touch-cancel"
    case longPress = "long-press"
    case longPressEnd = "long-press-end"
    case `repeat` = "repeat"
    case tap
    case toggle
    case singleTap = "single-tap"
    case doubleTap = "double-tap"
    case tripleTap = "triple-tap"
    case quadrupleTap = "quadruple-tap"
    case quintupleTap = "quintuple-tap"
    /// A confirm button's first tap: it waits `windowMs` for a second one (`data.windowMs`).
    case armed
    /// The armed window closed: `reason` `fired`, `timeout` or `cancel`.
    case disarmed
    /// An up inside that a guard kept from tapping: `reason` `too-short` (with `durationMs`)
    /// or `locked-out`.
    case refused
    case sheetOpen = "sheet-open"
    case select
    case sheetCancel = "sheet-cancel"
}

extension EventType {
    /// The longest tap series that has its own event (`quintuple-tap`).
    public static let maxTapCount = 5

    /// The event that ends a tap series of `count` taps (1...5); counts above 5 map to
    /// `quintuple-tap`, counts below 1 to `single-tap`.
    public static func nTap(_ count: Int) -> EventType {
        switch count {
        case ...1: .singleTap
        case 2: .doubleTap
        case 3: .tripleTap
        case 4: .quadrupleTap
        default: .quintupleTap
        }
    }

    /// Whether this event ends a tap series (`single-tap` ... `quintuple-tap`).
    public var isNTap: Bool {
        switch self {
        case .singleTap, .doubleTap, .tripleTap, .quadrupleTap, .quintupleTap: true
        default: false
        }
    }
}
