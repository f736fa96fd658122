import Buttons
import Handlers
import MicroHTTP

/// What a request may do and see (SPEC §6): a role, and for a named token its name and the
/// groups it is limited to. The route guard hands it to the routes as `Request.access`.
struct Grant: Sendable, Equatable {
    enum Role: Int, Comparable, Sendable {
        case read, press, admin

        static func < (a: Role, b: Role) -> Bool { a.rawValue < b.rawValue }

        init?(name: String) {
            switch name {
            case "read": self = .read
            case "press": self = .press
            case "admin": self = .admin
            default: return nil
            }
        }

        var name: String {
            switch self {
            case .read: "read"
            case .press: "press"
            case .admin: "admin"
            }
        }
    }

    var role: Role
    /// A named token's name (it goes into events as `by`); nil for the fixed tokens.
    var name: String?
    /// The groups whose buttons and sheets it sees; nil for all of them.
    var groups: Set<String>?
    /// When a named token stops being valid (epoch ms); nil for one that does not expire.
    var expiresAt: Int64?
    /// Whether a token was asked for and presented (false when none is needed): the request
    /// log and the metrics name the token only then.
    var asked = true

    /// The admin token.
    static let admin = Grant(role: .admin)
    /// No token is needed (loopback, none configured, or a route open to anyone).
    static let everything = Grant(role: .admin, asked: false)

    /// Whether a button or sheet of `group` exists for this grant: any other is 404 to it.
    func sees(group: String?) -> Bool {
        guard let groups else { return true }
        return group.map(groups.contains) ?? false
    }

    var isScoped: Bool { groups != nil }
}

extension Viewer {
    /// A grant's view: the admin role sees everything, the read and press roles what the
    /// press token sees.
    init(_ grant: Grant) { self = grant.role == .admin ? .admin : .press }
}
