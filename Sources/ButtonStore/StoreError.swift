/// Thrown for any SQLite failure or unusable data directory, with a message a person can act on.
///
/// The store never crashes on bad input or a bad disk; every failure becomes one of these,
/// naming the path involved, so the server can log it and answer with an error.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public var description: String
    /// Nothing is wrong with the database: every reader was in use (`ReaderPool`); the same
    /// read succeeds again shortly.
    public var busy: Bool

    public init(_ description: String, busy: Bool = false) {
        self.description = description
        self.busy = busy
    }
}
