import CMicroHTTPD
import CMicroHTTPDShims
import Platform

/// A request's headers, names lower-cased, kept as libmicrohttpd's bytes in arrival order (each
/// as its name's and its value's lengths, two `UInt32`s, then the name and the value: the
/// layout `bd_request_headers` writes) and made strings only when a handler asks for one. A
/// request reads three or four of them (host, origin, authorization, content type), so a walk
/// over a few hundred bytes costs less than the dictionary of strings it replaces cost every
/// press, and the lengths let it step from header to header without searching for ends.
public struct Headers: Sendable, ExpressibleByDictionaryLiteral {
    private let bytes: [UInt8]
    /// Where a header's name starts after its lengths.
    private static let lengthsSize = 2 * MemoryLayout<UInt32>.size

    /// `headers` as if they had arrived in that order; names are lower-cased.
    public init(dictionaryLiteral headers: (String, String)...) {
        var bytes: [UInt8] = []
        for (name, value) in headers {
            withUnsafeBytes(of: (UInt32(name.utf8.count), UInt32(value.utf8.count))) { bytes += $0 }
            bytes += name.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
            bytes += value.utf8
        }
        self.bytes = bytes
    }

    /// The headers of the request `connection` is reading, copied in one pass (libmicrohttpd
    /// frees them when the request ends): onto the stack, then into an array of their size.
    /// (`[UInt8](unsafeUninitializedCapacity:)` looked its storage type's metadata up at run time
    /// on every request.)
    init(of connection: OpaquePointer) {
        var needed = 0
        let copied = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buffer -> [UInt8]? in
            needed = bd_request_headers(connection, buffer.baseAddress, buffer.count)
            return needed <= buffer.count ? Array(UnsafeBufferPointer(rebasing: buffer[..<needed])) : nil
        }
        if let copied {
            bytes = copied
            return
        }
        // A head larger than that (libmicrohttpd's pool allows up to its size): copied again.
        var larger = [UInt8](repeating: 0, count: needed)
        larger.withUnsafeMutableBytes { _ = bd_request_headers(connection, $0.baseAddress, $0.count) }
        bytes = larger
    }

    /// Calls `body` with each header's name and value in `bytes` (the layout above), in
    /// arrival order.
    private static func forEach(
        in bytes: UnsafeBufferPointer<UInt8>, _ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Void
    ) {
        guard let base = bytes.baseAddress else { return }
        var index = 0
        while index + lengthsSize <= bytes.count {
            let raw = UnsafeRawPointer(base + index)
            let nameCount = Int(raw.loadUnaligned(as: UInt32.self))
            let valueCount = Int(raw.loadUnaligned(fromByteOffset: MemoryLayout<UInt32>.size, as: UInt32.self))
            let name = index + lengthsSize
            let value = name + nameCount
            index = value + valueCount
            guard index <= bytes.count else { return }
            body(UnsafeBufferPointer(start: base + name, count: nameCount), UnsafeBufferPointer(start: base + value, count: valueCount))
        }
    }

    /// Every header in arrival order (names lower-cased), a repeated one each time it came.
    public var all: [(name: String, value: String)] {
        var all: [(name: String, value: String)] = []
        bytes.withUnsafeBufferPointer { bytes in
            Self.forEach(in: bytes) { name, value in
                all.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            }
        }
        return all
    }

    /// The value of header `name` (lower case); of the last one when it came more than once.
    public subscript(name: String) -> String? {
        withValue(of: name) { $0.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// Whether header `name` (lower case; the last one when it came more than once) is exactly
    /// `value`, compared where it lies: a press asks this of its `Content-Type`, whose value
    /// made into a string was a heap allocation on every request.
    public func value(of name: String, is value: StaticString) -> Bool {
        withValue(of: name) { found in
            guard let found, found.count == value.utf8CodeUnitCount else { return false }
            return found.isEmpty || memcmp(found.baseAddress!, value.utf8Start, found.count) == 0
        }
    }

    /// Header `name`'s value (the last one's) lent to `body` as bytes, or nil.
    private func withValue<R>(of name: String, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        var name = name
        return name.withUTF8 { name in
            bytes.withUnsafeBufferPointer { bytes in
                var found: UnsafeBufferPointer<UInt8>?
                Self.forEach(in: bytes) { candidate, value in
                    if candidate.count == name.count
                        && (name.isEmpty || memcmp(candidate.baseAddress!, name.baseAddress!, name.count) == 0)
                    {
                        found = value
                    }
                }
                return body(found)
            }
        }
    }
}
