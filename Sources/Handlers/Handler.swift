import Delivery
import ButtonEngine
import JSON

/// A handler: which events of one button or sheet fire it, and the webhook or script it runs.
///
/// The one shape of a handler: the API reads and renders it, the store keeps it in typed
/// columns, the dispatcher runs it.
public struct Handler: Sendable, Equatable {

    public typealias Action = DeliveryAction

    public var id: String
    public var owner: Source
    public var on: [EventType]
    /// For a sheet's `select`: only this option.
    public var option: String?
    public var enabled = true
    /// With `false`, a delivery waiting for its retry does not hold back later ones.
    public var ordered = true
    public var action: Action
    public var maxAttempts: Int64
    public var expireAfterMs: Int64?

    public init(
        id: String, owner: Source, on: [EventType], option: String? = nil, enabled: Bool = true, ordered: Bool = true,
        action: Action, maxAttempts: Int64, expireAfterMs: Int64? = nil
    ) {
        self.id = id
        self.owner = owner
        self.on = on
        self.option = option
        self.enabled = enabled
        self.ordered = ordered
        self.action = action
        self.maxAttempts = maxAttempts
        self.expireAfterMs = expireAfterMs
    }

    /// `webhook`, `script` or `osc`.
    public var kind: String { action.kind }
}
