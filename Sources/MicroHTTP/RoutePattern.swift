/// What a route matches: its method, its path pattern (`/api/v1/buttons/{id}/press`) as
/// literal and parameter segments, and the query parameters it knows. Not generic, so the
/// router reads it on every request without looking up any type's metadata.
@usableFromInline final class RoutePattern: Sendable {
    enum Segment: Sendable, Equatable {
        case literal([UInt8])
        case parameter(String)
    }

    @usableFromInline let method: String
    @usableFromInline let pattern: String
    let segments: [Segment]
    let parameterNames: [String]
    let parameterIndexes: [Int]
    @usableFromInline let query: [String]
    /// The route's place in its router's table.
    @usableFromInline let index: Int
    /// `key(of:)` of the last segment when it is a literal; 0 when it is a parameter (or there
    /// are no segments), which any path's last segment may fill.
    @usableFromInline let lastKey: UInt64

    init(method: String, pattern: String, query: [String], index: Int) {
        let segments = pattern.split(separator: "/").map { part -> Segment in
            if part.hasPrefix("{") && part.hasSuffix("}") { return .parameter(String(part.dropFirst().dropLast())) }
            return .literal(Array(part.utf8))
        }
        self.method = method
        self.pattern = pattern
        self.segments = segments
        parameterNames = segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
        parameterIndexes = segments.indices.filter { if case .parameter = segments[$0] { true } else { false } }
        self.query = query
        self.index = index
        if case .literal(let literal) = segments.last {
            lastKey = literal.withUnsafeBufferPointer(Self.key(of:))
        } else {
            lastKey = 0
        }
    }

    /// A segment's length (its low byte) and first seven bytes in one word; not 0 for a path's
    /// segment, whose first byte is never a NUL (the path is a C string).
    /// Equal segments have equal keys, so a route is only matched when its last literal's key is
    /// the path's: the router compares words instead of retaining and matching every route with
    /// as many segments (eight, for a press).
    @usableFromInline static func key(of segment: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var key = UInt64(truncatingIfNeeded: segment.count) << 56
        for (offset, byte) in segment.prefix(7).enumerated() { key |= UInt64(byte) << (8 * UInt64(offset)) }
        return key
    }

    /// The path's parameters if it matches (as many segments, every literal equal).
    @usableFromInline func match(_ path: PathSegments) -> Request.Parameters? {
        // Last segment first: routes that share a prefix (`/api/v1/buttons/{id}/…`) differ at
        // the end, so most candidates are refused on one comparison instead of four.
        for index in segments.indices.reversed() {
            if case .literal(let literal) = segments[index], !path.segment(index, equals: literal) { return nil }
        }
        return Request.Parameters(names: parameterNames, values: parameterIndexes.map(path.string))
    }
}
