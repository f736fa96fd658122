import CSQLite

extension StoreError {
    /// Turns a SQLite result code into a message that says what to do about it.
    static func sqlite(_ code: Int32, message: String, path: String, doing context: String) -> StoreError {
        switch code & 0xFF {
        case SQLITE_NOTADB:
            return StoreError(
                "\(path) is not a usable SQLite database (\(message)); move it aside to start empty, or restore a backup")
        case SQLITE_CORRUPT:
            return damaged(path, "\(message) while \(context)")
        case SQLITE_FULL:
            return StoreError("the disk holding \(path) is full (\(message)) while \(context)")
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN, SQLITE_AUTH:
            return StoreError(
                "cannot write \(path) (\(message)) while \(context); check the data directory's owner and permissions")
        case SQLITE_BUSY, SQLITE_LOCKED:
            return StoreError("\(path) is locked by another process (\(message)) while \(context)")
        default:
            return StoreError("SQLite error in \(path) while \(context): \(message) (code \(code))")
        }
    }

    /// A database with damaged pages: what SQLite found, and the command that lists it all.
    static func damaged(_ path: String, _ finding: String) -> StoreError {
        let suffix = "/" + ButtonStore.fileName
        let directory = path.hasSuffix(suffix) ? String(path.dropLast(suffix.count)) : path
        return StoreError(
            "\(path) is damaged (\(finding)); `buttond check --data-dir \(directory)` lists what SQLite finds; "
                + "restore a backup, or move the file aside to start empty")
    }
}
