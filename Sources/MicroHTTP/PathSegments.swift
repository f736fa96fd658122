import Platform

/// A request path's segments (`/a//b/` has `a` and `b`), found in one pass over its bytes:
/// routing compares them with the routes' literals as bytes, and only a matched route's
/// parameters become strings. Splitting the path's `String` (even its UTF-8 view) cost a
/// press more than the matching.
@usableFromInline struct PathSegments {
    private let bytes: [UInt8]
    /// Where each segment lies in `bytes`.
    private let bounds: [Range<Int>]

    @usableFromInline init(_ path: String) {
        let bytes = Array(path.utf8)
        var bounds: [Range<Int>] = []
        bounds.reserveCapacity(8)
        var start = 0
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "/") {
            if offset > start { bounds.append(start..<offset) }
            start = offset + 1
        }
        if bytes.count > start { bounds.append(start..<bytes.count) }
        self.bytes = bytes
        self.bounds = bounds
    }

    @usableFromInline var count: Int { bounds.count }

    /// Whether segment `index` is exactly `literal`.
    func segment(_ index: Int, equals literal: [UInt8]) -> Bool {
        let range = bounds[index]
        guard range.count == literal.count else { return false }
        guard !literal.isEmpty else { return true }
        return bytes.withUnsafeBufferPointer { path in
            literal.withUnsafeBufferPointer { memcmp(path.baseAddress! + range.lowerBound, $0.baseAddress!, range.count) == 0 }
        }
    }

    /// Segment `index`'s `RoutePattern.key`: a route whose last literal has another cannot match.
    @usableFromInline func key(_ index: Int) -> UInt64 {
        bytes.withUnsafeBufferPointer { RoutePattern.key(of: UnsafeBufferPointer(rebasing: $0[bounds[index]])) }
    }

    /// Segment `index` as a string (a path is valid UTF-8, and `/` never splits a character).
    func string(_ index: Int) -> String {
        bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[bounds[index]]), as: UTF8.self) }
    }
}
