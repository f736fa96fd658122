/// An action sheet's open/closed state and the events its actions emit.
///
/// Kept beside the button machine so sheets and buttons share one event shape. A choice or
/// a cancel works whether or not the sheet is open, so a script can choose directly.
public struct SheetMachine: Sendable {
    /// The sheet's option ids in display order; an option's index is its position here.
    public var optionIDs: [String]
    /// Shown on the panels.
    public private(set) var isOpen = false

    public init(optionIDs: [String]) {
        self.optionIDs = optionIDs
    }

    /// Shows the sheet: `sheet-open`.
    public mutating func open(t: Int64) -> [GestureEvent] {
        isOpen = true
        return [GestureEvent(.sheetOpen, t: t)]
    }

    /// Chooses by id or, failing that, by a decimal index ("0", "1", ...): `select` with the
    /// option's id and index; closes the sheet.
    public mutating func choose(option: String, t: Int64) throws(SheetError) -> [GestureEvent] {
        if let index = optionIDs.firstIndex(of: option) {
            return try choose(index: index, t: t)
        }
        guard let index = Self.decimalIndex(option) else { throw .unknownOption }
        return try choose(index: index, t: t)
    }

    /// Chooses by index: `select` with the option's id and index; closes the sheet.
    public mutating func choose(index: Int, t: Int64) throws(SheetError) -> [GestureEvent] {
        guard optionIDs.indices.contains(index) else { throw .unknownOption }
        isOpen = false
        return [GestureEvent(.select, t: t, data: EventData(option: optionIDs[index], index: index))]
    }

    /// Dismisses the sheet: `sheet-cancel`; closes it.
    public mutating func cancel(t: Int64) -> [GestureEvent] {
        isOpen = false
        return [GestureEvent(.sheetCancel, t: t)]
    }

    /// Only plain ASCII digits count ("+1", "-0" and " 1" are not indexes).
    private static func decimalIndex(_ text: String) -> Int? {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= 9, utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(text)
    }
}
