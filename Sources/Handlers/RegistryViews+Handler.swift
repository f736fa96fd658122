import JSON

extension RegistryViews {
    /// A handler as `viewer` may see it, with its health.
    package func handler(_ handler: Handler, for viewer: Viewer = .admin) -> JSONValue {
        guard case .object(var object) = handler.json(for: viewer) else { return .null }
        object["health"] = health.json(handler, disabledReason: handlers.disabledReasons(owner: handler.owner)[handler.id])
        return .object(object)
    }
}
