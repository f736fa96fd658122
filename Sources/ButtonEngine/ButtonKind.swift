/// Whether a button is a plain push button or a two-faced toggle that flips on each tap.
///
/// The kind only changes what a tap emits: a toggle adds a `toggle` event after its `tap`.
public enum ButtonKind: String, Sendable, CaseIterable {
    case push
    case toggle
}
