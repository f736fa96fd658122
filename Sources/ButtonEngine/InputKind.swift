/// The four raw touch inputs a client can send; everything else is derived by the engine.
public enum InputKind: String, Sendable, CaseIterable {
    case down
    case move
    case up
    case cancel
}
