import Outbox
import ButtonStore
import JSON
import Platform

/// Who reads a handler or a delivery, and so what of it is shown (SPEC §6 "What the press
/// token sees of a handler"). Paths, queries, header values, body templates, script arguments
/// and what a receiver answered can all carry credentials (a Slack path, `/botTOKEN/`, an
/// echoed `Authorization`), so the press token sees where a handler points and how it is
/// doing, never what it sends. The one place this is decided: the handler view, the handler
/// lists, config export and the delivery log all render through it.
package enum Viewer: Sendable, Equatable {
    /// The admin token, or anyone when no token is configured (loopback): everything.
    case admin
    /// The press token: id, events, enabled, health, kind, and a webhook's scheme, host and port.
    case press

    package static let hidden: JSONValue = "***"

    /// `value` for the admin, `"***"` for the press token.
    package func shown(_ value: JSONValue) -> JSONValue { self == .admin ? value : Self.hidden }

    package func shown(_ text: String) -> JSONValue { shown(.string(text)) }

    /// A webhook URL: whole for the admin; for the press token its scheme and authority
    /// (host and port) only, then `/***` when anything followed them (path, query, fragment).
    package func url(_ url: String) -> String {
        guard self == .press else { return url }
        return URLParts(url)?.originRedacted ?? "***"
    }
}

extension Handler {
    package var json: JSONValue { json(for: .admin) }

    /// The handler as `viewer` may see it (the same shape for both; hidden values read `"***"`).
    package func json(for viewer: Viewer) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "on": .array(on.map { .string($0.rawValue) }), "enabled": .bool(enabled),
        ]
        switch owner {
        case .button(let name): object["button"] = .string(name)
        case .sheet(let name): object["sheet"] = .string(name)
        }
        if let option { object["option"] = .string(option) }
        object["ordered"] = .bool(ordered)
        var extra: [String: JSONValue] = ["maxAttempts": .int(maxAttempts)]
        if let expireAfterMs { extra["expireAfterMs"] = .int(expireAfterMs) }
        switch action {
        case .webhook(let hook):
            extra["url"] = .string(viewer.url(hook.url))
            extra["method"] = .string(hook.method)
            if let body = hook.body { extra["body"] = viewer.shown(body) }
            extra["headers"] = .object(hook.headers.mapValues { viewer.shown($0) })
            extra["timeoutMs"] = .int(hook.timeoutMs)
            object["webhook"] = .object(extra)
        case .script(let run):
            extra["name"] = .string(run.name)
            extra["args"] = .array(run.args.map { viewer.shown($0) })
            extra["timeoutMs"] = .int(run.timeoutMs)
            object["script"] = .object(extra)
        case .osc(let osc):
            extra["url"] = .string(osc.url)  // scheme, host and port only: nothing else is allowed in it
            extra["address"] = viewer.shown(osc.address)
            extra["args"] = .array(osc.args.map { arg in ["type": .string(arg.type), "value": viewer.shown(arg.value)] })
            extra["slip"] = .bool(osc.slip)
            object["osc"] = .object(extra)
        }
        return .object(object)
    }

    /// Where its deliveries go, for the log: `POST http://host/path` or `script name`.
    package func target(for viewer: Viewer) -> String {
        switch action {
        case .webhook(let hook): "\(hook.method) \(viewer.url(hook.url))"
        case .script(let run): "script \(run.name)"
        case .osc(let osc): viewer == .admin ? "osc \(osc.url) \(osc.address)" : "osc \(osc.url)"
        }
    }
}

extension StoredAttempt {
    /// An attempt as the log shows it; the receiver's or the script's output is the admin's only.
    package func json(for viewer: Viewer) -> JSONValue {
        var object: [String: JSONValue] = [
            "number": .int(Int64(number)), "startedAt": .int(startedAt), "durationMs": .int(durationMs),
            "outcome": .string(outcome), "output": viewer.shown(output),
        ]
        if let statusCode { object["statusCode"] = .int(Int64(statusCode)) }
        if let exitCode { object["exitCode"] = .int(Int64(exitCode)) }
        return .object(object)
    }
}
