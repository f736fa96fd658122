import Buttons
import ButtonEngine
import MicroHTTP
import Outbox

/// What a route needs before it runs (SPEC §6 "Access is declared where a route is
/// declared"): the role a token must have, and the object the route acts on, through which a
/// token limited to groups is judged. Every route is registered with one (`Router.add` takes
/// no route without it), and `APIGuard` applies it before the route runs.
struct Access: Sendable, Equatable, CustomStringConvertible {
    /// What a route acts on, and the path parameter that names it.
    enum Object: Sendable, Equatable {
        /// Nothing of one group: a list, the history or the stream, which show only what the
        /// grant sees (and a `?button=`, `?sheet=` or `?handler=` filter it does not see is 404).
        case none
        case button(parameter: String)
        case sheet(parameter: String)
        /// A handler, reached through the button or sheet that owns it.
        case handler(parameter: String)
        /// A delivery, reached through the button or sheet whose event it carries (its
        /// handler's owner).
        case delivery(parameter: String)
        /// What belongs to every group at once (tokens, the whole registry, the metrics): never
        /// for a token limited to groups.
        case deployment
    }

    /// The least role that may call the route; nil for a route open to anyone (`/healthz`).
    var role: Grant.Role?
    var object: Object

    static let open = Access(role: nil, object: .none)
    static func read(_ object: Object = .none) -> Access { Access(role: .read, object: object) }
    static func press(_ object: Object) -> Access { Access(role: .press, object: object) }
    static func admin(_ object: Object) -> Access { Access(role: .admin, object: object) }

    /// `press button(id)`, as the route table test lists it.
    var description: String {
        let object: String =
            switch self.object {
            case .none: "-"
            case .button(let name): "button({\(name)})"
            case .sheet(let name): "sheet({\(name)})"
            case .handler(let name): "handler({\(name)})"
            case .delivery(let name): "delivery({\(name)})"
            case .deployment: "deployment"
            }
        return "\(role?.name ?? "open") \(object)"
    }
}

/// The one check every API request passes before its route runs: the token (`Auth`), its role
/// against the route's declared role, then its groups against the declared object.
struct APIGuard: RouteGuard {
    let api: API

    func admit(_ request: Request, to access: Access) throws(HTTPError) -> Grant {
        do throws(ButtonsError) {
            guard let needed = access.role else { return .everything }
            guard let grant = try api.auth.grant(for: request) else { return .everything }
            try Self.allow(grant, needed: needed, on: access.object)
            if grant.isScoped { try api.checkScope(of: request, on: access.object, grant) }
            return grant
        } catch {
            throw error.httpError
        }
    }

    /// Under `/api/` and `/metrics` a path no route matches still needs a token: a GET one
    /// that may read, anything else an admin's.
    func admitUnmatched(_ request: Request) throws(HTTPError) -> Grant? {
        guard request.path.hasPrefix("/api/") || request.path == "/metrics" else { return nil }
        do throws(ButtonsError) {
            guard let grant = try api.auth.grant(for: request) else { return nil }
            try Self.allow(grant, needed: request.method == "GET" || request.method == "HEAD" ? .read : .admin, on: .none)
            return grant
        } catch {
            throw error.httpError
        }
    }

    func principal(of grant: Grant) -> RequestPrincipal? {
        grant.asked ? RequestPrincipal(role: grant.role.name, name: grant.name ?? grant.role.name) : nil
    }

    private static func allow(_ grant: Grant, needed: Grant.Role, on object: Access.Object) throws(ButtonsError) {
        guard grant.role >= needed else {
            let may = grant.role == .read ? "may only read" : "may read and send input, not change the registry"
            throw ButtonsError.forbidden("this \(grant.name == nil ? "press token" : "token") \(may)")
        }
        if grant.isScoped && object == .deployment {
            throw ButtonsError.forbidden("a token limited to groups may not do this: it concerns every group")
        }
    }
}

extension API {
    /// A scoped grant reaches the object a route names only through the group of the button or
    /// sheet that owns it; anything else is 404 with the words of a missing one.
    func checkScope(of request: Request, on object: Access.Object, _ grant: Grant) throws(ButtonsError) {
        switch object {
        case .none, .deployment:
            break
        case .button(let parameter):
            let id = request.parameter(parameter)
            guard sees(.button(id), grant) else { throw ButtonsError.notFound("no button named '\(id)'") }
        case .sheet(let parameter):
            let id = request.parameter(parameter)
            guard sees(.sheet(id), grant) else { throw ButtonsError.notFound("no sheet named '\(id)'") }
        case .handler(let parameter):
            try checkHandler(request.parameter(parameter), grant)
        case .delivery(let parameter):
            let id = request.parameter(parameter)
            if let row = try? delivery(id), !sees(row, grant) { throw ButtonsError.notFound("no delivery with id '\(id)'") }
        }
        if let hid = request.query["handler"] { try checkHandler(hid, grant) }
        for key in ["button", "sheet"] {
            if let name = request.query[key], !sees(source: name, grant) {
                throw ButtonsError.notFound("no button or sheet named '\(name)'")
            }
        }
    }

    private func checkHandler(_ hid: String, _ grant: Grant) throws(ButtonsError) {
        if let handler = try? handlers.get(hid), !sees(handler.owner, grant) {
            throw ButtonsError.notFound("no handler with id '\(hid)'")
        }
    }
}

/// The API's router: every route declares its `Access`.
typealias APIRouter = Router<APIGuard>

/// The API's router as the server calls it: `Router.route` compiled here for `APIGuard` (called
/// through `Router`'s own conformance, it ran as generic code that looked its route type's
/// metadata up on every request).
struct APIRouting: RequestRouting {
    let router: APIRouter

    func route(_ request: consuming Request) -> Routed { router.route(request) }
}
