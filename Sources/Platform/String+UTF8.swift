extension String {
    /// Runs `body` with the string's UTF-8 bytes: a native string lends its own storage as it
    /// is; another (bridged, say) is copied first. `withUTF8` wants a `var`, and making one
    /// retained and released the string on every call of a press's hot path.
    /// Inlinable: called unspecialized across the module boundary, each call looked up its
    /// generic metadata at run time (the request log's hot path).
    @inlinable
    public func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }
}
