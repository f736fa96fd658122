import Config
import Handlers
import MicroHTTP

extension API {
    func addConfigRoutes(to router: inout APIRouter) {
        let (registry, handlers, maxButtons) = (self.registry, self.handlers, options.maxButtons)
        let sequencer = self.sequencer
        let api = self
        router.get("/api/v1/config", access: .read()) { _, grant in
            let viewer = Viewer(grant)
            return .json(RegistryConfig.export(registry: registry, handlers: handlers, render: { $0.json(for: viewer) }) { api.sees($0, grant) })
        }
        let logger = self.logger
        router.put("/api/v1/config", query: ["dryRun"], access: .admin(.deployment)) { request, _ in
            let dryRun = try Self.flag(request, "dryRun")
            let config = try RegistryConfig.parse(
                try request.json(maxDepth: 32), context: api.handlerContext(), maxButtons: maxButtons, icons: registry.icons)
            let (plan, secrets) = try config.apply(
                registry: registry, handlers: handlers, sequencer: sequencer, dryRun: dryRun, logger: logger, source: "PUT /api/v1/config",
                view: .admin)
            return .json(["applied": .bool(!dryRun), "plan": plan.json, "secrets": .object(secrets.mapValues { .string($0) })])
        }
    }
}

extension HandlerView {
    /// Handlers in a config's plan as the admin reads them (`Viewer.admin`).
    static let admin = HandlerView(json: { $0.json(for: .admin) }, target: { $0.target(for: .admin) })
}
