import Platform

/// Creates the data directory and database file with owner-only permissions before SQLite opens it.
///
/// SQLite would create the file 0644; the data holds webhook secrets, so it must be 0600 from
/// the first byte (SQLite gives the -wal and -shm files the same mode as the database).
public enum DataDirectory {
    /// Creates `directory` and any missing parents with mode 0700; an existing one is left as is.
    public static func create(_ directory: String) throws(StoreError) {
        guard !directory.isEmpty else {
            throw StoreError("the data directory path is empty")
        }
        try makeDirectory(directory, for: directory)
        guard access(directory, W_OK | X_OK) == 0 else {
            throw StoreError("the data directory \(directory) is not writable: \(lastError)")
        }
    }

    /// Creates the database file with mode 0600, or tightens an existing one to 0600.
    static func prepareFile(_ path: String) throws(StoreError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StoreError("cannot create or open the database file \(path): \(lastError)")
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & 0o077 != 0 {
            // Best effort: a file we do not own keeps its mode, and SQLite reports what follows.
            _ = fchmod(fd, 0o600)
        }
    }

    /// Opens and locks (`flock`, exclusive, non-blocking) the data directory's lock file; the
    /// lock lasts as long as the returned descriptor is open.
    static func lock(_ path: String) throws(StoreError) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StoreError("cannot create the lock file \(path): \(lastError)")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let held = errno == EWOULDBLOCK
            let reason = lastError
            // The holder wrote its pid into the file.
            var bytes = [UInt8](repeating: 0, count: 32)
            let count = pread(fd, &bytes, bytes.count, 0)
            close(fd)
            guard held else { throw StoreError("cannot lock \(path): \(reason)") }
            let pid = count > 0 ? Int32(String(decoding: bytes.prefix(count), as: UTF8.self).filter(\.isNumber)) : nil
            let directory = String(path.dropLast("/buttond.lock".count))
            throw StoreError("another buttond is using \(directory)" + (pid.map { " (pid \($0))" } ?? ""))
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
        return fd
    }

    private static func makeDirectory(_ path: String, for target: String) throws(StoreError) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw StoreError("cannot create the data directory \(target): \(path) exists and is not a directory")
            }
            return
        }
        let parent = parentPath(of: path)
        if !parent.isEmpty, parent != path {
            try makeDirectory(parent, for: target)
        }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw StoreError("cannot create the data directory \(target): \(lastError) (at \(path))")
        }
    }

    private static func parentPath(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") {
            trimmed = trimmed.dropLast()
        }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    private static var lastError: String {
        String(cString: strerror(errno))
    }
}
