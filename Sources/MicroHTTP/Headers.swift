import CMicroHTTPD
import CMicroHTTPDShims
import Platform

/// A request's headers, names lower-cased, kept as libmicrohttpd's bytes (`name\0value\0` for
/// each, in arrival order) and made strings only when a handler asks for one. A request reads
/// three or four of them (host, origin, authorization, content type), so a search of a few
/// hundred bytes costs less than the dictionary of strings it replaces cost every press.
public struct Headers: Sendable, ExpressibleByDictionaryLiteral {
    private let bytes: [UInt8]

    /// `headers` as if they had arrived in that order; names are lower-cased.
    public init(dictionaryLiteral headers: (String, String)...) {
        var bytes: [UInt8] = []
        for (name, value) in headers {
            bytes += name.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
            bytes.append(0)
            bytes += value.utf8
            bytes.append(0)
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

    /// Every header in arrival order (names lower-cased), a repeated one each time it came.
    public var all: [(name: String, value: String)] {
        let parts = bytes.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
        return stride(from: 0, to: parts.count - 1, by: 2).map { (parts[$0], parts[$0 + 1]) }
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
            bytes.withUnsafeBufferPointer { bytes -> R in
                guard let start = bytes.baseAddress else { return body(nil) }
                // Every name and every value ends with a 0, which memchr finds a word at a time.
                let base = UnsafeRawPointer(start)
                func end(from offset: Int) -> Int { UnsafeRawPointer(memchr(base + offset, 0, bytes.count - offset)!) - base }
                var found: Range<Int>?
                var index = 0
                while index < bytes.count {
                    let nameEnd = end(from: index)
                    let valueEnd = end(from: nameEnd + 1)
                    if nameEnd - index == name.count && (name.isEmpty || memcmp(base + index, name.baseAddress!, name.count) == 0) {
                        found = nameEnd + 1..<valueEnd
                    }
                    index = valueEnd + 1
                }
                return body(found.map { UnsafeBufferPointer(rebasing: bytes[$0]) })
            }
        }
    }
}
