import ButtonEngine

/// Events as short readable strings (`"tap@100 tapCount=1"`), so a table of expected events
/// reads like the spec.
extension GestureEvent {
    var text: String {
        var text = "\(type.rawValue)@\(t)"
        if let v = data.durationMs { text += " durationMs=\(v)" }
        if let v = data.tapCount { text += " tapCount=\(v)" }
        if let v = data.face { text += " face=\(v)" }
        if let v = data.previousFace { text += " previousFace=\(v)" }
        if let v = data.repeat { text += " repeat=\(v)" }
        if let v = data.option { text += " option=\(v)" }
        if let v = data.index { text += " index=\(v)" }
        if let v = data.reason { text += " reason=\(v)" }
        if let v = data.windowMs { text += " windowMs=\(v)" }
        if let v = data.pointer { text += " pointer=\(v)" }
        return text
    }
}

extension Array where Element == GestureEvent {
    var texts: [String] { map(\.text) }
}

/// Where two event streams part, for a short failure message instead of two long arrays.
func firstDifference(_ a: [GestureEvent], _ b: [GestureEvent]) -> String? {
    guard a != b else { return nil }
    let index = a.indices.first { $0 >= b.count || a[$0] != b[$0] } ?? a.count
    let context = max(index - 3, 0)
    let left = a[context..<min(index + 2, a.count)].map(\.text)
    let right = b[min(context, b.count)..<min(index + 2, b.count)].map(\.text)
    return "differ at \(index) (counts \(a.count), \(b.count)): \(left) vs \(right)"
}
