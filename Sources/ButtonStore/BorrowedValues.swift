import CSQLite
import Platform

/// The text and blobs of one run of a statement, copied into one buffer that `Statement.run(borrowing:)`
/// keeps alive while SQLite steps: SQLite reads them where they lie (`SQLITE_STATIC`) instead of
/// copying each into an allocation of its own (`SQLITE_TRANSIENT`), which cost a malloc and a free a
/// value on the commit path. Reused across runs, so the buffer is allocated once.
package struct BorrowedValues {
    /// Where a value lies in `bytes`, and how SQLite is to read it.
    struct Slot {
        var index: Int32
        var start: Int
        var count: Int
        var isText: Bool
    }

    private(set) var bytes: [UInt8] = []
    private(set) var slots: [Slot] = []

    package init() {}

    /// Room for `slots` values of `bytes` bytes in all, so filling them does not grow the buffers.
    package mutating func reserveCapacity(bytes: Int, slots: Int) {
        self.bytes.reserveCapacity(bytes)
        self.slots.reserveCapacity(slots)
    }

    /// Forgets the values, keeping the buffers' capacity.
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        slots.removeAll(keepingCapacity: true)
    }

    /// `value` as UTF-8 text for parameter `index`; nil leaves it to `Statement.bind` (NULL).
    package mutating func append(_ value: String, at index: Int32) {
        let start = bytes.count
        value.withUTF8Bytes { bytes.append(contentsOf: $0) }
        slots.append(Slot(index: index, start: start, count: bytes.count - start, isText: true))
    }

    /// `value` as a blob for parameter `index`.
    package mutating func append(_ value: some Collection<UInt8>, at index: Int32) {
        let start = bytes.count
        bytes.append(contentsOf: value)
        slots.append(Slot(index: index, start: start, count: bytes.count - start, isText: false))
    }
}
