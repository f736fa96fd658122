/// An action sheet's open/closed state and the events its actions emit.
///
/// Kept beside the button machine so sheets and buttons share one event shape. A choice or
/// a cancel works whether or not the sheet is open, so a script can choose directly.
public struct SheetMachine: Sendable {
    /// The sheet's option ids in display order; an option's index is its position here.
    public var optionIDs: [String]
    /// Shown on the panels.
    public private(set) var isOpen = false
    /// How long an open sheet waits for a choice before it cancels itself (0: for ever), so a
    /// panel that opened it and went away does not leave it open on every other one.
    public var openTimeoutMs: Int64
    /// When the open sheet times out (the `t` of its open plus `openTimeoutMs`), if it does.
    public private(set) var closesAt: Int64?

    public init(optionIDs: [String], openTimeoutMs: Int64 = 0) {
        self.optionIDs = optionIDs
        self.openTimeoutMs = openTimeoutMs
    }

    /// Shows the sheet: `sheet-open`. Opening an open sheet again starts its timeout again.
    public mutating func open(t: Int64) -> [GestureEvent] {
        isOpen = true
        closesAt = openTimeoutMs > 0 ? t.saturatingAdd(openTimeoutMs) : nil
        return [GestureEvent(.sheetOpen, t: t)]
    }

    /// The timeout at `now`: `sheet-cancel` with `reason: "timeout"` at the deadline's `t` once
    /// it has come (at exactly `closesAt` it has), else nothing.
    public mutating func fireDue(now: Int64) -> [GestureEvent] {
        guard isOpen, let closesAt, closesAt <= now else { return [] }
        close()
        return [GestureEvent(.sheetCancel, t: closesAt, data: EventData(reason: "timeout"))]
    }

    private mutating func close() {
        isOpen = false
        closesAt = nil
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
        close()
        return [GestureEvent(.select, t: t, data: EventData(option: optionIDs[index], index: index))]
    }

    /// Dismisses the sheet: `sheet-cancel`; closes it.
    public mutating func cancel(t: Int64) -> [GestureEvent] {
        close()
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
