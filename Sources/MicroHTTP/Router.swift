/// Maps method and path to a handler. Patterns are literal segments and `{name}` parameters;
/// a path that matches a pattern under another method answers 405 with `Allow`.
public struct Router: Sendable {
    public typealias Handler = @Sendable (Request) throws -> Response

    /// A class, not a struct: a request is matched against several routes, and looking at one
    /// costs a retain instead of a copy of its strings, arrays and handler.
    final class Route: Sendable {
        let method: String
        let pattern: String
        let segments: [Segment]
        /// The names of the `{name}` segments, in order (`Request.Parameters` shares it).
        let parameterNames: [String]
        /// Where those segments are in the path.
        let parameterIndexes: [Int]
        /// The query parameters the route reads; with `refusesUnknownQuery`, any other is 400.
        let query: [String]
        let handler: Handler

        init(method: String, pattern: String, segments: [Segment], query: [String], handler: @escaping Handler) {
            self.method = method
            self.pattern = pattern
            self.segments = segments
            parameterNames = segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
            parameterIndexes = segments.indices.filter { if case .parameter = segments[$0] { true } else { false } }
            self.query = query
            self.handler = handler
        }
    }

    enum Segment: Sendable, Equatable {
        case literal([UInt8])
        case parameter(String)
    }

    private var routes: [Route] = []
    /// Routes by number of path segments (the index): a request is only matched against those.
    private var bySegmentCount: [[Route]] = []
    /// Answers paths no route matches (static files, say); nil means 404.
    public var fallback: Handler?
    /// Runs before every matched route's handler (auth): throwing answers with that error; what
    /// it returns is handed to the handler as `Request.access`.
    public var guardRoute: (@Sendable (Request, _ method: String, _ pattern: String) throws(HTTPError) -> (any Sendable)?)?
    /// A query parameter a route does not declare is 400 `unknown_parameter`: a typo like
    /// `?buton=` must not quietly answer as if no filter were given.
    public var refusesUnknownQuery = false

    public init() {}

    public mutating func add(_ method: String, _ pattern: String, query: [String] = [], _ handler: @escaping Handler) {
        let segments = pattern.split(separator: "/").map { part -> Segment in
            if part.hasPrefix("{") && part.hasSuffix("}") { return .parameter(String(part.dropFirst().dropLast())) }
            return .literal(Array(part.utf8))
        }
        let route = Route(method: method, pattern: pattern, segments: segments, query: query, handler: handler)
        while bySegmentCount.count <= segments.count { bySegmentCount.append([]) }
        bySegmentCount[segments.count].append(route)
        routes.append(route)
    }

    public mutating func get(_ pattern: String, query: [String] = [], _ handler: @escaping Handler) {
        add("GET", pattern, query: query, handler)
    }
    public mutating func post(_ pattern: String, _ handler: @escaping Handler) { add("POST", pattern, handler) }
    public mutating func put(_ pattern: String, _ handler: @escaping Handler) { add("PUT", pattern, handler) }
    public mutating func patch(_ pattern: String, _ handler: @escaping Handler) { add("PATCH", pattern, handler) }
    public mutating func delete(_ pattern: String, _ handler: @escaping Handler) { add("DELETE", pattern, handler) }

    /// Every (method, pattern) pair, for checking the OpenAPI document against the routes.
    public var table: [(method: String, pattern: String, query: [String])] { routes.map { ($0.method, $0.pattern, $0.query) } }

    /// 400 naming the first parameter `route` does not know (sorted, so the answer is stable).
    private static func checkQuery(_ request: Request, _ route: Route) throws(HTTPError) {
        guard !request.query.isEmpty, let unknown = request.query.keys.filter({ !route.query.contains($0) }).sorted().first else { return }
        let known = route.query.isEmpty ? "takes no query parameters" : "knows \(route.query.joined(separator: ", "))"
        throw HTTPError(
            400, code: "unknown_parameter",
            message: "unknown query parameter '\(unknown)': \(route.method) \(route.pattern) \(known)",
            details: ["parameter": .string(unknown)])
    }

    /// The route's parameters if `path` matches its segments, else nil.
    private static func match(_ route: Route, _ path: PathSegments) -> Request.Parameters? {
        // Last segment first: routes that share a prefix (`/api/v1/buttons/{id}/…`) differ at
        // the end, so most candidates are refused on one comparison instead of four.
        let segments = route.segments
        for index in segments.indices.reversed() {
            if case .literal(let literal) = segments[index], !path.segment(index, equals: literal) { return nil }
        }
        return Request.Parameters(names: route.parameterNames, values: route.parameterIndexes.map(path.string))
    }

    /// Runs the matching handler; errors it throws become JSON error responses.
    /// Returns the response and the matched pattern (for logs and metrics).
    public func handle(_ request: Request) -> (Response, String) {
        let (response, route, _) = handleGranting(request)
        return (response, route)
    }

    /// `handle`, also returning what the guard granted (for the request's log line and metrics).
    public func handleGranting(_ request: consuming Request) -> (Response, String, (any Sendable)?) {
        let path = PathSegments(request.path)
        var allowed: [String] = []
        let method = request.method == "HEAD" ? "GET" : request.method
        let candidates = path.count < bySegmentCount.count ? bySegmentCount[path.count] : []
        for route in candidates {
            guard let parameters = Self.match(route, path) else { continue }
            if route.method == method {
                request.parameters = parameters
                if let guardRoute {
                    do throws(HTTPError) {
                        request.access = try guardRoute(request, route.method, route.pattern)
                    } catch {
                        return (error.response, route.pattern, nil)
                    }
                }
                if refusesUnknownQuery {
                    do throws(HTTPError) { try Self.checkQuery(request, route) } catch { return (error.response, route.pattern, request.access) }
                }
                return (Self.run(route.handler, request), route.pattern, request.access)
            }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        // Unmatched requests are guarded too (with their path as the pattern), so a 404 or
        // 405 tells nothing about the routes to a client the guard would refuse.
        if let guardRoute {
            do throws(HTTPError) {
                request.access = try guardRoute(request, request.method, request.path)
            } catch {
                return (error.response, allowed.isEmpty ? "404" : "405", nil)
            }
        }
        if !allowed.isEmpty {
            if allowed.contains("GET") { allowed.append("HEAD") }
            let error = HTTPError(
                405, code: "method_not_allowed",
                message: "\(request.method) is not allowed on \(request.path); allowed: \(allowed.joined(separator: ", "))",
                headers: [("Allow", allowed.joined(separator: ", "))])
            return (error.response, "405", request.access)
        }
        if let fallback { return (Self.run(fallback, request), "static", request.access) }
        return (HTTPError.notFound("no route for \(request.path)").response, "404", request.access)
    }

    private static func run(_ handler: Handler, _ request: Request) -> Response {
        do {
            return try handler(request)
        } catch let error as HTTPError {
            return error.response
        } catch let error as any HTTPErrorConvertible {
            return error.httpError.response
        } catch {
            return HTTPError(500, code: "internal", message: "internal error").response
        }
    }
}
