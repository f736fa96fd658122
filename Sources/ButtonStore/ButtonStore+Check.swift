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

    /// At open, before anything else reads it: SQLite's quick check reads every page of every
    /// table and index once (the structure of each b-tree, not whether indexes match their
    /// tables), so a damaged file refuses to start rather than answering 503 later on the
    /// pages a request reaches. About 50 ms for 100 k buttons and 100 k events (a 39 MB file).
    static func verify(_ connection: Connection) throws(StoreError) {
        let findings = try connection.statement("PRAGMA quick_check(3)").rows { $0.text(0) }
        guard findings != ["ok"] else { return }
        // The first finding starts with a "*** in database main ***" line.
        let lines = findings.flatMap { $0.split(separator: "\n") }.filter { !$0.hasPrefix("***") }
        throw StoreError.damaged(connection.path, "SQLite's quick check: " + lines.joined(separator: "; "))
    }
}
