import Buttons
import FoundationEssentials
import Platform
import Dispatch
import MicroHTTP
import Logging

/// Who may call what (SPEC §6): the admin token may do everything, the press token may read
/// and send input, a named token what its role allows on its groups' buttons and sheets.
/// With no fixed token and a loopback bind, nothing is asked of a request that presents none.
struct Auth: Sendable {
    let adminToken: String?
    let pressToken: String?
    let named: NamedTokens
    /// What a named token's expiry is judged by.
    let clock: Clock

    var enabled: Bool { adminToken != nil || pressToken != nil }

    /// Constant-time comparison: the time taken does not depend on where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool { same(Array(a.utf8), Array(b.utf8)) }

    static func same(_ x: [UInt8], _ y: [UInt8]) -> Bool {
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) {
            difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return difference == 0
    }

    /// The grant for the token presented; nil when no token is needed (and none was given).
    func grant(for request: Request) throws(ButtonsError) -> Grant? {
        let presented = Self.presented(request)
        if let token = presented, token.hasPrefix(NamedTokens.prefix) {
            switch named.verify(token, now: clock.now()) {
            case .valid(let found): return found
            case .expired: throw Self.unauthorized("the token has expired: ask the admin for a new one")
            case .unknown: throw Self.unauthorized("the token is not valid (revoked, or never made)")
            }
        }
        guard enabled else { return nil }
        guard let token = presented, !token.isEmpty else {
            throw ButtonsError.unauthorized("this server needs a token: send Authorization: Bearer TOKEN", .missing)
        }
        if let adminToken, Self.same(token, adminToken) { return .admin }
        if let pressToken, Self.same(token, pressToken) { return Grant(role: .press) }
        throw Self.unauthorized("the token is not valid")
    }

    /// A bearer token, or on the event stream (whose browser EventSource sends no headers) the
    /// `access_token` query parameter.
    private static func presented(_ request: Request) -> String? {
        if let header = request.headers["authorization"] {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return String(parts[1]).trimmed() }
        }
        return request.path == "/api/v1/events/stream" ? request.query["access_token"] : nil
    }

    private static func unauthorized(_ message: String) -> ButtonsError {
        ButtonsError.unauthorized(message, .rejected)
    }

    static func isLoopback(_ host: String) -> Bool { IPAddress.isLoopback(host: host) }

    /// The admin token to use: the configured one, or for a non-loopback bind without one, the
    /// one kept in the data directory (made and announced on first start).
    static func resolve(options: ServeOptions, named: NamedTokens, logger: Logger, clock: Clock) throws -> Auth {
        var admin = options.adminToken
        if admin == nil && !isLoopback(options.host) {
            let file = options.dataDir + "/admin-token"
            if let kept = try? String(contentsOfFile: file, encoding: .utf8).trimmed(), !kept.isEmpty {
                admin = kept
                logger.log(.info, "admin token kept in the data directory", ["file": file])
            } else {
                var bytes = [UInt8](repeating: 0, count: 24)
                var generator = SystemRandomNumberGenerator()
                for i in bytes.indices { bytes[i] = generator.next() }
                let token = Data(bytes).base64EncodedString()
                    .replacing("+", with: "-").replacing("/", with: "_")
                    .replacing("=", with: "")
                guard FileManager.default.createFile(atPath: file, contents: Data((token + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
                    throw ButtonServerApp.StartError(description: "cannot write the admin token to \(file)")
                }
                chmod(file, 0o600)
                admin = token
                logger.log(
                    .warn, "generated an admin token; keep it safe",
                    ["token": token, "file": file, "panel": options.panelURL(port: options.port)], force: true)
            }
        }
        return Auth(adminToken: admin, pressToken: options.pressToken, named: named, clock: clock)
    }
}
