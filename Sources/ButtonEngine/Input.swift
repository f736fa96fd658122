/// One raw touch input for one button, as it arrives from a client.
///
/// It carries the client's own timestamp (if any) so a recorded batch replays exactly.
public struct Input: Sendable, Equatable {
    public var kind: InputKind
    /// The client's time in ms; `nil` means "now" (or the button's clock if that is later).
    public var t: Int64?
    /// For `move`: whether the pointer is now inside. For `up`: overrides the last move.
    public var inside: Bool?
    /// The client's pointer id; attached to the events of the press.
    public var pointer: String?

    public init(_ kind: InputKind, t: Int64? = nil, inside: Bool? = nil, pointer: String? = nil) {
        self.kind = kind
        self.t = t
        self.inside = inside
        self.pointer = pointer
    }
}
