/// What decides, before a route runs, whether a request may reach it. Every route declares its
/// `Access` when it is added (the router has no way to add one without), the guard turns the
/// declaration and the request into a `Grant` or an error, and the route receives that grant,
/// typed. The server's own types fill both in (a role and the object a route acts on); this
/// module knows nothing of them.
public protocol RouteGuard: Sendable {
    /// What a route declares it needs.
    associatedtype Access: Sendable
    /// What a request that passed is allowed, handed to the route.
    associatedtype Grant: Sendable

    /// The grant for `request` on a route that declared `access`, or the error to answer.
    func admit(_ request: Request, to access: Access) throws(HTTPError) -> Grant

    /// A path no route matches (a 404, a 405, a static file): the guard may refuse it, so that
    /// a 404 or 405 tells nothing about the routes to a client it would refuse anyway.
    func admitUnmatched(_ request: Request) throws(HTTPError) -> Grant?

    /// Who a grant is, for the request's log line and metrics; nil when nobody was asked.
    func principal(of grant: Grant) -> RequestPrincipal?
}

/// Who made a request, as the request log and the metrics name it: a role, and the name of
/// the credential (never its value).
public struct RequestPrincipal: Sendable, Equatable {
    public var role: String
    public var name: String

    public init(role: String, name: String) {
        self.role = role
        self.name = name
    }
}

/// A guard that asks nothing: for servers (and tests) whose routes are all open.
public struct Unguarded: RouteGuard {
    public init() {}
    public func admit(_ request: Request, to access: Void) throws(HTTPError) {}
    public func admitUnmatched(_ request: Request) throws(HTTPError) -> Void? { nil }
    public func principal(of grant: Void) -> RequestPrincipal? { nil }
}

/// What routing a request gives the server: the answer, the route's pattern (or what stands for
/// it: `404`, `405`, `static`) and who was granted it.
public struct Routed: Sendable {
    public var response: Response
    public var route: String
    public var principal: RequestPrincipal?

    @inlinable
    public init(response: Response, route: String, principal: RequestPrincipal? = nil) {
        self.response = response
        self.route = route
        self.principal = principal
    }
}

/// A router as the server calls it, whatever its guard.
public protocol RequestRouting: Sendable {
    func route(_ request: consuming Request) -> Routed
}
