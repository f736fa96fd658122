import Buttons
import MicroHTTP
import Platform

/// Named tokens (SPEC §6): made, listed and revoked by an admin who sees every group.
extension API {
    func addTokenRoutes(to router: inout APIRouter) {
        let (named, clock) = (auth.named, auth.clock)
        router.post("/api/v1/tokens", access: .admin(.deployment)) { request, _ in
            let (token, secret) = try named.create(from: try request.json(), now: clock.now())
            guard case .object(var object) = NamedTokens.json(token) else { return .noContent }
            object["token"] = .string(secret)
            var response = Response.json(.object(object), status: 201)
            response.headers.append(("Location", "/api/v1/tokens/\(token.name)"))
            return response
        }
        router.get("/api/v1/tokens", access: .admin(.deployment)) { _, _ in
            .json(["tokens": .array(named.list.map(NamedTokens.json))])
        }
        router.delete("/api/v1/tokens/{name}", access: .admin(.deployment)) { request, _ in
            try named.revoke(request.parameter("name"))
            return .noContent
        }
    }
}
