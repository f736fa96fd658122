/// Many rows in few statements: the commit path writes a batch's events (and states) with
/// multi-row INSERTs of power-of-two sizes, so SQLite's work per statement (opening the
/// cursors, seeking the table's end, the halt and its frees) is done once per run, not per row.
extension Connection {
    /// The most rows one statement writes; a prepared statement is kept for each power of two up to it.
    static let maxRowsPerStatement = 32

    /// Writes `count` rows with `head` + rows of `row` + `tail` (see `statement(_:repeating:rows:then:)`),
    /// each run as large a power of two as is left. `bind` binds row `index` of the batch at
    /// parameters `base + 1` ... `base + parameters`: integers on the statement, text and blobs
    /// into the values; what it leaves unbound is NULL.
    func insertRows(
        _ count: Int, head: StaticString, row: StaticString, tail: StaticString = "", parameters: Int32,
        bind: (_ index: Int, _ base: Int32, Statement, inout BorrowedValues) -> Void
    ) throws(StoreError) {
        var values = BorrowedValues()
        // Enough for the largest run of short text (ids, types, small data objects).
        let largest = min(count, Self.maxRowsPerStatement)
        values.reserveCapacity(bytes: largest * Int(parameters) * 16, slots: largest * Int(parameters))
        var done = 0
        while done < count {
            var rows = Self.maxRowsPerStatement
            while rows > count - done { rows /= 2 }
            let insert = try statement(head, repeating: row, rows: rows, then: tail)
            values.removeAll()
            for offset in 0..<rows {
                bind(done + offset, Int32(offset) * parameters, insert, &values)
            }
            try insert.run(borrowing: values)
            done += rows
        }
    }
}
