/// Maps method and path to a handler. Patterns are literal segments and `{name}` parameters;
/// a path that matches a pattern under another method answers 405 with `Allow`. Every route
/// declares its access when it is added; the guard admits a request before the route runs and
/// hands the route its grant.
public struct Router<Guard: RouteGuard>: RequestRouting {
    public typealias Handler = @Sendable (Request, Guard.Grant) throws -> Response

    /// A route's access and handler; what it matches is its `RoutePattern` (a class: a request
    /// is matched against several, and looking at one costs a retain, not a copy).
    @usableFromInline struct Route: Sendable {
        @usableFromInline let pattern: RoutePattern
        @usableFromInline let access: Guard.Access
        @usableFromInline let handler: Handler
    }

    @usableFromInline var routes: [Route] = []
    /// The routes' patterns by number of path segments (the index), each with its place in
    /// `routes`: a request is only matched against those. Matching reads only patterns, which
    /// are not generic (a generic route read on every request looked its metadata up at run time).
    @usableFromInline var bySegmentCount: [[RoutePattern]] = []
    /// Each of those patterns' `lastKey`, in the same places: most are passed over on a word.
    @usableFromInline var lastKeys: [[UInt64]] = []
    /// Answers paths no route matches (static files, say); nil means 404.
    public var fallback: (@Sendable (Request) throws -> Response)?
    /// Admits every request before its route runs.
    public let routeGuard: Guard
    /// A query parameter a route does not declare is 400 `unknown_parameter`: a typo like
    /// `?buton=` must not quietly answer as if no filter were given.
    public var refusesUnknownQuery = false

    public init(guard routeGuard: Guard) {
        self.routeGuard = routeGuard
    }

    /// Adds a route: no route exists without the access it declares.
    public mutating func add(
        _ method: String, _ pattern: String, query: [String] = [], access: Guard.Access, _ handler: @escaping Handler
    ) {
        let parsed = RoutePattern(method: method, pattern: pattern, query: query, index: routes.count)
        while bySegmentCount.count <= parsed.segments.count {
            bySegmentCount.append([])
            lastKeys.append([])
        }
        bySegmentCount[parsed.segments.count].append(parsed)
        lastKeys[parsed.segments.count].append(parsed.lastKey)
        routes.append(Route(pattern: parsed, access: access, handler: handler))
    }

    public mutating func get(_ pattern: String, query: [String] = [], access: Guard.Access, _ handler: @escaping Handler) {
        add("GET", pattern, query: query, access: access, handler)
    }
    public mutating func post(_ pattern: String, access: Guard.Access, _ handler: @escaping Handler) {
        add("POST", pattern, access: access, handler)
    }
    public mutating func put(_ pattern: String, query: [String] = [], access: Guard.Access, _ handler: @escaping Handler) {
        add("PUT", pattern, query: query, access: access, handler)
    }
    public mutating func patch(_ pattern: String, access: Guard.Access, _ handler: @escaping Handler) {
        add("PATCH", pattern, access: access, handler)
    }
    public mutating func delete(_ pattern: String, access: Guard.Access, _ handler: @escaping Handler) {
        add("DELETE", pattern, access: access, handler)
    }

    /// One row of the route table.
    public struct Entry: Sendable {
        public var method: String
        public var pattern: String
        public var query: [String]
        public var access: Guard.Access
    }

    /// Every route with what it declared: for the OpenAPI document's check and the access table.
    public var table: [Entry] {
        routes.map { Entry(method: $0.pattern.method, pattern: $0.pattern.pattern, query: $0.pattern.query, access: $0.access) }
    }

    /// 400 naming the first parameter `route` does not know (sorted, so the answer is stable).
    @usableFromInline static func checkQuery(_ request: Request, _ route: RoutePattern) throws(HTTPError) {
        guard !request.query.isEmpty, let unknown = request.query.keys.filter({ !route.query.contains($0) }).sorted().first else { return }
        let known = route.query.isEmpty ? "takes no query parameters" : "knows \(route.query.joined(separator: ", "))"
        throw HTTPError(
            400, code: "unknown_parameter",
            message: "unknown query parameter '\(unknown)': \(route.method) \(route.pattern) \(known)",
            details: ["parameter": .string(unknown)])
    }

    /// Runs the matching route once the guard has admitted the request; errors become JSON
    /// error responses. Inlinable: the server's own router type (`RequestRouting`) calls it
    /// specialized for its guard, where a generic one looked the route's type metadata up on
    /// every request.
    @inlinable
    public func route(_ request: consuming Request) -> Routed {
        let path = PathSegments(request.path)
        var allowed: [String] = []
        let method = request.method == "HEAD" ? "GET" : request.method
        let (candidates, keys) = path.count < bySegmentCount.count ? (bySegmentCount[path.count], lastKeys[path.count]) : ([], [])
        let pathKey = path.count > 0 ? path.key(path.count - 1) : 0
        for place in keys.indices where keys[place] == 0 || keys[place] == pathKey {
            let candidate = candidates[place]
            guard let parameters = candidate.match(path) else { continue }
            if candidate.method == method {
                let route = routes[candidate.index]
                request.parameters = parameters
                let grant: Guard.Grant
                do throws(HTTPError) { grant = try routeGuard.admit(request, to: route.access) } catch {
                    return Routed(response: error.response, route: candidate.pattern)
                }
                let principal = routeGuard.principal(of: grant)
                if refusesUnknownQuery {
                    do throws(HTTPError) { try Self.checkQuery(request, candidate) } catch {
                        return Routed(response: error.response, route: candidate.pattern, principal: principal)
                    }
                }
                return Routed(response: Self.run(request, route.handler, grant), route: candidate.pattern, principal: principal)
            }
            if !allowed.contains(candidate.method) { allowed.append(candidate.method) }
        }
        // Unmatched requests are guarded too, so a 404 or 405 tells nothing about the routes
        // to a client the guard would refuse.
        let grant: Guard.Grant?
        do throws(HTTPError) { grant = try routeGuard.admitUnmatched(request) } catch {
            return Routed(response: error.response, route: allowed.isEmpty ? "404" : "405")
        }
        let principal = grant.flatMap(routeGuard.principal(of:))
        if !allowed.isEmpty {
            if allowed.contains("GET") { allowed.append("HEAD") }
            let error = HTTPError(
                405, code: "method_not_allowed",
                message: "\(request.method) is not allowed on \(request.path); allowed: \(allowed.joined(separator: ", "))",
                headers: [("Allow", allowed.joined(separator: ", "))])
            return Routed(response: error.response, route: "405", principal: principal)
        }
        if let fallback { return Routed(response: Self.run(request, { request, _ in try fallback(request) }, ()), route: "static", principal: principal) }
        return Routed(response: HTTPError.notFound("no route for \(request.path)").response, route: "404", principal: principal)
    }

    @usableFromInline static func run<G>(_ request: Request, _ handler: (Request, G) throws -> Response, _ grant: G) -> Response {
        do {
            return try handler(request, grant)
        } catch let error as HTTPError {
            return error.response
        } catch let error as any HTTPErrorConvertible {
            return error.httpError.response
        } catch {
            return HTTPError(500, code: "internal", message: "internal error").response
        }
    }
}

extension Router where Guard == Unguarded {
    /// A router whose routes are all open.
    public init() { self.init(guard: Unguarded()) }

    public mutating func get(_ pattern: String, query: [String] = [], _ handler: @escaping @Sendable (Request) throws -> Response) {
        add("GET", pattern, query: query, access: ()) { request, _ in try handler(request) }
    }
    public mutating func post(_ pattern: String, _ handler: @escaping @Sendable (Request) throws -> Response) {
        add("POST", pattern, access: ()) { request, _ in try handler(request) }
    }
    public mutating func delete(_ pattern: String, _ handler: @escaping @Sendable (Request) throws -> Response) {
        add("DELETE", pattern, access: ()) { request, _ in try handler(request) }
    }
    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping @Sendable (Request) throws -> Response) {
        add(method, pattern, access: ()) { request, _ in try handler(request) }
    }
}
