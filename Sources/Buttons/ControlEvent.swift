import ButtonEngine
import ButtonStore
import Platform
import JSON

/// A control event as clients see it everywhere (responses, stream, history, webhooks,
/// scripts): the engine's gesture event plus its source, a unique id and its `seq`.
/// Serialized once, by hand, into `json`; every consumer reuses those bytes.
package struct ControlEvent: Sendable {
    package var seq: Int64
    package var id: String
    package var type: EventType
    package var source: Source
    package var t: Int64
    package var data: EventData
    /// Who sent the input that caused it: a named token's name, `mqtt` or `osc` (SPEC §6).
    package var by: String?
    package var json: [UInt8]
    /// Where the data object lies in `json`: what the event log keeps of it besides the columns.
    package var dataRange: Range<Int> = 0..<0

    package init(seq: Int64, idPrefix: String, gesture: GestureEvent, source: Source, by sender: String? = nil) {
        self.seq = seq
        self.id = idPrefix + String(seq, radix: 36)
        self.type = gesture.type
        self.source = source
        self.t = gesture.t
        self.data = gesture.data
        self.by = sender
        self.json = []
        encode()
    }

    /// Renders the event with `EventJSON` (what the store renders a compact row with) and
    /// notes where its data object lies, which is all of it the row keeps.
    private mutating func encode() {
        var w = JSONWriter(capacity: 192)
        EventJSON.head(id: id, seq: seq, type: type.rawValue, button: source.button, sheet: source.sheet, t: t, into: &w)
        let dataStart = w.bytes.count
        w.raw("{")
        var first = true
        func key(_ name: StaticString) {
            w.key(name, first: first)
            first = false
        }
        if let v = data.durationMs { key("durationMs"); w.write(v) }
        if let v = data.tapCount { key("tapCount"); w.write(Int64(v)) }
        if let v = data.face { key("face"); w.write(Int64(v)) }
        if let v = data.previousFace { key("previousFace"); w.write(Int64(v)) }
        if let v = data.repeat { key("repeat"); w.write(Int64(v)) }
        if let v = data.option { key("option"); w.write(v) }
        if let v = data.index { key("index"); w.write(Int64(v)) }
        if let v = data.reason { key("reason"); w.write(v) }
        if let v = data.pointer { key("pointer"); w.write(v) }
        w.raw("}")
        dataRange = dataStart..<w.bytes.count
        EventJSON.tail(by: by, into: &w)
        json = w.bytes
    }
}
