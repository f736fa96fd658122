/// One HTTP request, copied out of libmicrohttpd so handlers never touch C memory.
public struct Request: Sendable {
    public var method: String
    /// The path as libmicrohttpd decoded it (percent-escapes resolved), without the query.
    public var path: String
    public var query: [String: String]
    /// Header names are lower-cased.
    public var headers: Headers
    public var body: [UInt8]
    /// Values of `{name}` segments of the matched route.
    public var parameters = Parameters()
    public var remoteAddress: String

    public init(
        method: String, path: String, query: [String: String] = [:], headers: Headers = [:],
        body: [UInt8] = [], remoteAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    public func header(_ name: String) -> String? {
        // Callers nearly always ask in lower case already: no new string then.
        var name = name
        let lowercase = name.withUTF8 { bytes in
            !bytes.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") || $0 >= 0x80 }
        }
        return headers[lowercase ? name : name.lowercased()]
    }

    /// A matched route's `{name}` values: the route's names (shared by all its requests) and
    /// the values in pattern order. A route has one or two, so a search beats a dictionary,
    /// which cost every press its allocation and hashing.
    public struct Parameters: Sendable {
        var names: [String] = []
        var values: [String] = []

        /// The value of `{name}`; of the last when a pattern names it twice, as the dictionary did.
        public subscript(name: String) -> String? { names.lastIndex(of: name).map { values[$0] } }
    }

    /// A route parameter; the router guarantees the ones in the pattern exist.
    public func parameter(_ name: String) -> String { parameters[name] ?? "" }

    /// The body parsed as strict JSON: 415 unless it is declared JSON, 400 when it is malformed.
    /// An empty body reads as `{}` so that `curl -X POST` works for calls whose fields are all
    /// optional, and `curl -d '{…}'`'s default form content type is taken when the body is JSON.
    public func json(maxDepth: Int = 32) throws(HTTPError) -> JSONValue {
        if body.isEmpty { return .object([:]) }
        if !headers.value(of: "content-type", is: "application/json"), let type = headers["content-type"] {
            let mime = type.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces().lowercased() } ?? ""
            if mime == "application/x-www-form-urlencoded" {
                guard let value = try? JSONParser.parse(body, maxDepth: maxDepth) else { throw .formBody(body) }
                return value
            }
            guard mime == "application/json" || mime.hasSuffix("+json") else { throw .unsupportedMediaType() }
        }
        do {
            return try JSONParser.parse(body, maxDepth: maxDepth)
        } catch {
            throw .badRequest(error.description)
        }
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return s
    }
}

extension StringProtocol {
    /// Without leading and trailing white space (and newlines): Foundation's
    /// `trimmingCharacters(in:)` without Foundation's locale machinery.
    public func trimmed() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
