/// One request as libcurl is told to make it: what the client commands, the tests and the
/// webhook sender share, whether it runs on the caller's thread (`HTTPClient`) or on the
/// event loop (`HTTPLoop`). Redirects are never followed; only `http://` and `https://`.
public struct HTTPRequest: Sendable {
    /// Refuses an address libcurl is about to connect to (4 or 16 bytes in network order, and
    /// the port), after name resolution: the reason, or nil to allow it.
    public typealias AddressCheck = @Sendable (_ address: [UInt8], _ port: Int) -> String?

    public var method: String
    public var url: String
    /// Header lines as libcurl takes them (`Name: value`; `Name:` removes one of curl's own).
    public var headerLines: [String]
    /// Sent as is (nil: no body).
    public var body: [UInt8]?
    public var connectTimeoutMs = 10_000
    /// The whole transfer (nil: as long as the server sends).
    public var timeoutMs: Int?
    /// A PEM file of the certificates to trust for `https://`.
    public var caFile: String?
    public var verifiesPeer = true
    /// Sends the path without squashing `/../` (the tests send such paths on purpose).
    public var pathAsIs = false
    /// Asked about every connection the transfer opens.
    public var addressCheck: AddressCheck?
    /// Of the answer's body, only the first this many bytes are kept.
    public var bodyLimit = Int.max
    /// Of the answer's headers, only these (lower case) are kept (nil: all); the others are
    /// never made into strings.
    public var keptHeaders: [String]?

    public init(method: String, url: String, headerLines: [String] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headerLines = headerLines
        self.body = body
    }
}
