import Platform

extension ButtonStore {
    /// `buttond check`: SQLite's own integrity check of the database in `directory`, read
    /// beside a running server (no lock taken, nothing written). `["ok"]` when it is sound,
    /// else what SQLite found (a page out of place, an index that misses rows, …).
    public static func check(directory: String) throws(StoreError) -> [String] {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        let path = base + fileName
        guard access(path, R_OK) == 0 else { throw StoreError("no database to check at \(path)") }
        let connection = try Connection(path: path, role: .reader)
        defer { connection.close() }
        return try connection.statement("PRAGMA integrity_check").rows { $0.text(0) }
    }
}
