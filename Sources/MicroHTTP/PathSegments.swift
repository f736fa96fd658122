import Platform

/// A request path's segments (`/a//b/` has `a` and `b`), found in one pass over its bytes:
/// routing compares them with the routes' literals as bytes, and only a matched route's
/// parameters become strings. Splitting the path's `String` (even its UTF-8 view) cost a
/// press more than the matching. The path's own UTF-8 storage is read in place (a copy of its
/// bytes was an allocation a request).
@usableFromInline struct PathSegments {
    private let path: String
    /// Where each segment lies in `path`'s UTF-8.
    private let bounds: [Range<Int>]

    @usableFromInline init(_ path: String) {
        var path = path
        path.makeContiguousUTF8()
        var bounds: [Range<Int>] = []
        bounds.reserveCapacity(8)
        path.withUTF8 { bytes in
            var start = 0
            for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "/") {
                if offset > start { bounds.append(start..<offset) }
                start = offset + 1
            }
            if bytes.count > start { bounds.append(start..<bytes.count) }
        }
        self.path = path
        self.bounds = bounds
    }

    /// The path's UTF-8, contiguous since `init`, lent to `body`.
    private func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = path.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(path.utf8).withUnsafeBufferPointer(body)
    }

    @usableFromInline var count: Int { bounds.count }

    /// Whether segment `index` is exactly `literal`.
    func segment(_ index: Int, equals literal: [UInt8]) -> Bool {
        let range = bounds[index]
        guard range.count == literal.count else { return false }
        guard !literal.isEmpty else { return true }
        return withBytes { path in
            literal.withUnsafeBufferPointer { memcmp(path.baseAddress! + range.lowerBound, $0.baseAddress!, range.count) == 0 }
        }
    }

    /// Segment `index`'s `RoutePattern.key`: a route whose last literal has another cannot match.
    @usableFromInline func key(_ index: Int) -> UInt64 {
        withBytes { RoutePattern.key(of: UnsafeBufferPointer(rebasing: $0[bounds[index]])) }
    }

    /// Segment `index` as a string (a path is valid UTF-8, and `/` never splits a character).
    func string(_ index: Int) -> String {
        withBytes { String(decoding: UnsafeBufferPointer(rebasing: $0[bounds[index]]), as: UTF8.self) }
    }
}
