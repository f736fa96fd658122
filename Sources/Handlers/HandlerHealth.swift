import ButtonStore
import Outbox
import Delivery
import JSON
import ThreadSupport

/// How each handler's deliveries are going, as the panel shows it on a key: failing since
/// the last attempt that did not succeed (until one does), or disabled (by a 410, or by hand).
package final class HandlerHealth: Sendable {
    private let failing = Locked<[String: String]>([:])

    package init() {}

    /// Notes an attempt; true when the handler's health changed (it started or stopped failing,
    /// or fails for another reason).
    package func record(_ attempt: Dispatcher.Attempt) -> Bool {
        let handler = attempt.delivery.handler
        let reason = attempt.result.outcome == .ok ? nil : Self.reason(attempt)
        return failing.withLock { failing in
            guard failing[handler] != reason else { return false }
            failing[handler] = reason
            return true
        }
    }

    package func forget(_ handler: String) {
        failing.withLock { $0[handler] = nil }
    }

    /// `{"state": "ok" | "failing" | "disabled", "reason": …}` for one handler.
    package func json(_ handler: Handler, disabledReason: String?) -> JSONValue {
        if !handler.enabled { return ["state": "disabled", "reason": .string(disabledReason ?? "disabled")] }
        if let reason = failing.withLock({ $0[handler.id] }) { return ["state": "failing", "reason": .string(reason)] }
        return ["state": "ok"]
    }

    /// The worst of several handlers' health (disabled, then failing), naming the handler;
    /// nil when all are fine.
    package static func worst(_ healths: [(id: String, health: JSONValue)]) -> JSONValue? {
        for state in ["disabled", "failing"] {
            if let (id, health) = healths.first(where: { $0.health["state"] == .string(state) }),
                case .object(var object) = health
            {
                object["handler"] = .string(id)
                return .object(object)
            }
        }
        return nil
    }

    package static func reason(_ attempt: Dispatcher.Attempt) -> String {
        let result = attempt.result
        let what: String
        switch result.outcome {
        case .httpStatus: what = "the receiver answered \(result.statusCode.map(String.init) ?? "an error")"
        case .timeout: what = "no answer in time"
        case .connect: what = "could not connect" + (result.output.isEmpty ? "" : ": \(result.output.prefix(120))")
        case .exitCode: what = "the script exited with \(result.exitCode.map(String.init) ?? "an error")"
        case .signal: what = "the script was killed by signal \(result.exitCode.map(String.init) ?? "?")"
        case .refused: what = "the script is no longer runnable"
        case .blocked: what = "blocked: \(result.output.prefix(120))"
        case .expired: what = "expired before it could be sent"
        case .ok: what = "ok"
        }
        return what + (attempt.decision.status == .pending ? " (will retry)" : " (gave up)")
    }
}
