import Platform

/// Overwrites the page in the middle of a SQLite file (4 KiB pages) with a fixed pattern:
/// damage that SQLite's header check does not see, as a bad disk leaves it. Returns the
/// number of pages the file has (the caller checks it has enough for a middle).
@discardableResult
public func overwriteMiddlePage(of path: String) -> Int {
    let fd = open(path, O_RDWR)
    guard fd >= 0 else { return 0 }
    defer { close(fd) }
    let pages = Int(lseek(fd, 0, SEEK_END)) / 4096
    let pattern = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
    let written = pattern.withUnsafeBytes { pwrite(fd, $0.baseAddress, 4096, off_t(pages / 2 * 4096)) }
    return written == 4096 ? pages : 0
}
