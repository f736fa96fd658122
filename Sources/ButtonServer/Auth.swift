import Buttons
import FoundationEssentials
import Platform
import Dispatch
import MicroHTTP

/// Who may call what (SPEC §6): the admin token may do everything, the press token may read
/// and send input. With no token and a loopback bind, nothing is asked.
struct Auth: Sendable {
    enum Access: Comparable {
        case press, admin
    }

    let adminToken: String?
    let pressToken: String?

    var enabled: Bool { adminToken != nil || pressToken != nil }

    /// Routes a press token may call besides every GET: input and sheet actions.
    static let pressRoutes: Set<String> = [
        "/api/v1/buttons/{id}/down", "/api/v1/buttons/{id}/move", "/api/v1/buttons/{id}/up",
        "/api/v1/buttons/{id}/cancel", "/api/v1/buttons/{id}/press", "/api/v1/buttons/{id}/state",
        "/api/v1/input", "/api/v1/sheets/{id}/open", "/api/v1/sheets/{id}/choose", "/api/v1/sheets/{id}/cancel",
    ]

    /// Reads only the admin token may make: they tell of the deployment, not the buttons.
    static let adminReads: Set<String> = ["/api/v1/mqtt"]

    static func needed(method: String, pattern: String) -> Access {
        (method == "GET" && !adminReads.contains(pattern)) || pressRoutes.contains(pattern) ? .press : .admin
    }

    /// Constant-time comparison: the time taken does not depend on where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) {
            difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return difference == 0
    }

    /// Returns `"admin"` or `"press"` for the token presented, nil when no token is needed.
    func check(_ request: Request, method: String, pattern: String) throws(HTTPError) -> String? {
        guard enabled, pattern.hasPrefix("/api/") || pattern == "/metrics" else { return nil }
        var presented: String?
        if let header = request.header("authorization") {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { presented = String(parts[1]).trimmed() }
        }
        if presented == nil, pattern == "/api/v1/events/stream" { presented = request.query["access_token"] }
        guard let token = presented, !token.isEmpty else {
            throw HTTPError(
                401, code: "unauthorized", message: "this server needs a token: send Authorization: Bearer TOKEN",
                headers: [("WWW-Authenticate", "Bearer")])
        }
        let granted: Access
        if let adminToken, Self.same(token, adminToken) {
            granted = .admin
        } else if let pressToken, Self.same(token, pressToken) {
            granted = .press
        } else {
            throw HTTPError(
                401, code: "unauthorized", message: "the token is not valid", headers: [("WWW-Authenticate", "Bearer error=\"invalid_token\"")])
        }
        guard granted >= Self.needed(method: method, pattern: pattern) else {
            throw HTTPError(403, code: "forbidden", message: "the press token may read and send input, not change the registry")
        }
        return granted == .admin ? "admin" : "press"
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The admin token to use: the configured one, or for a non-loopback bind without one, the
    /// one kept in the data directory (made and announced on first start).
    static func resolve(options: ServeOptions, logger: Logger) throws -> Auth {
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
        return Auth(adminToken: admin, pressToken: options.pressToken)
    }
}
