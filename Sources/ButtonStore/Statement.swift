import CSQLite
import Platform

/// A prepared statement, kept by `Connection` and reused across calls.
///
/// Not thread-safe; it is only touched while the owning `ButtonStore`'s lock is held.
package final class Statement {
    private let handle: OpaquePointer
    private let path: String

    /// Tells SQLite to copy bound text and blobs, so Swift buffers need not outlive the bind call.
    private static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Binding (1-based indexes, as in the SQL's ?1, ?2, ...)

    package func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    package func bind(_ value: Int, at index: Int32) {
        sqlite3_bind_int64(handle, index, Int64(value))
    }

    package func bind(_ value: Bool, at index: Int32) {
        sqlite3_bind_int64(handle, index, value ? 1 : 0)
    }

    package func bind(_ value: Int64?, at index: Int32) {
        if let value { bind(value, at: index) } else { sqlite3_bind_null(handle, index) }
    }

    package func bind(_ value: Int?, at index: Int32) {
        if let value { bind(value, at: index) } else { sqlite3_bind_null(handle, index) }
    }

    package func bind(_ value: String, at index: Int32) {
        _ = value.withUTF8Bytes { utf8 in
            utf8.withMemoryRebound(to: CChar.self) { chars in
                if let base = chars.baseAddress {
                    sqlite3_bind_text64(handle, index, base, UInt64(chars.count), Self.transient, UInt8(SQLITE_UTF8))
                } else {
                    sqlite3_bind_text(handle, index, "", 0, Self.transient)
                }
            }
        }
    }

    package func bind(_ value: String?, at index: Int32) {
        if let value { bind(value, at: index) } else { sqlite3_bind_null(handle, index) }
    }

    package func bind(_ value: [UInt8], at index: Int32) {
        _ = value.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress {
                sqlite3_bind_blob64(handle, index, base, UInt64(bytes.count), Self.transient)
            } else {
                sqlite3_bind_zeroblob(handle, index, 0)
            }
        }
    }

    package func bind(_ value: ArraySlice<UInt8>?, at index: Int32) {
        guard let value else {
            sqlite3_bind_null(handle, index)
            return
        }
        _ = value.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress {
                sqlite3_bind_blob64(handle, index, base, UInt64(bytes.count), Self.transient)
            } else {
                sqlite3_bind_zeroblob(handle, index, 0)
            }
        }
    }

    package func bind(_ value: [UInt8]?, at index: Int32) {
        if let value { bind(value, at: index) } else { sqlite3_bind_null(handle, index) }
    }

    // MARK: Stepping

    /// Advances to the next row; `false` when the statement is done.
    package func step() throws(StoreError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
            sqlite3_reset(handle)
            throw StoreError.sqlite(code, message: message, path: path, doing: "running \(summary)")
        }
    }

    /// Runs a statement that returns no rows, then resets it for the next call.
    package func run() throws(StoreError) {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Binds `values` where they lie and runs the statement as `run()` does; then every
    /// parameter is NULL again, so no binding outlives the buffer it points into (and one that
    /// the next run binds no value to is NULL, as in a new statement).
    package func run(borrowing values: BorrowedValues) throws(StoreError) {
        let result = values.bytes.withUnsafeBytes { bytes -> Result<Void, StoreError> in
            defer { sqlite3_clear_bindings(handle) }
            for slot in values.slots {
                bindWithoutCopy(UnsafeRawBufferPointer(rebasing: bytes[slot.start..<slot.start + slot.count]), slot)
            }
            do throws(StoreError) { return .success(try run()) } catch { return .failure(error) }
        }
        try result.get()
    }

    /// SQLITE_STATIC: SQLite reads the bytes in place until the statement is reset and rebound.
    private func bindWithoutCopy(_ bytes: UnsafeRawBufferPointer, _ slot: BorrowedValues.Slot) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else {
            // Empty, not NULL, as `bind` makes it.
            if slot.isText { sqlite3_bind_text(handle, slot.index, "", 0, nil) } else { sqlite3_bind_zeroblob(handle, slot.index, 0) }
            return
        }
        if slot.isText {
            sqlite3_bind_text64(
                handle, slot.index, base.assumingMemoryBound(to: CChar.self), UInt64(bytes.count), nil, UInt8(SQLITE_UTF8))
        } else {
            sqlite3_bind_blob64(handle, slot.index, base, UInt64(bytes.count), nil)
        }
    }

    /// Collects every row, then resets the statement for the next call.
    package func rows<Row>(_ makeRow: (Statement) -> Row) throws(StoreError) -> [Row] {
        defer { sqlite3_reset(handle) }
        var rows: [Row] = []
        while try step() {
            rows.append(makeRow(self))
        }
        return rows
    }

    /// The first column of the first row as an integer (nil when no row or NULL).
    package func scalar() throws(StoreError) -> Int64? {
        defer { sqlite3_reset(handle) }
        guard try step() else { return nil }
        return optionalInt64(0)
    }

    // MARK: Columns (0-based)

    package func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    package func int(_ column: Int32) -> Int {
        Int(truncatingIfNeeded: sqlite3_column_int64(handle, column))
    }

    package func bool(_ column: Int32) -> Bool {
        sqlite3_column_int64(handle, column) != 0
    }

    package func optionalInt64(_ column: Int32) -> Int64? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : int64(column)
    }

    package func optionalInt(_ column: Int32) -> Int? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : int(column)
    }

    package func text(_ column: Int32) -> String {
        guard let start = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    }

    package func optionalText(_ column: Int32) -> String? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : text(column)
    }

    package func blob(_ column: Int32) -> [UInt8] {
        // The pointer must be fetched before the length (SQLite's documented order).
        let start = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let start, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    package func optionalBlob(_ column: Int32) -> [UInt8]? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : blob(column)
    }

    /// The statement's first words, to say which operation failed.
    private var summary: String {
        guard let sql = sqlite3_sql(handle) else { return "a statement" }
        let text = String(cString: sql)
        return text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}
