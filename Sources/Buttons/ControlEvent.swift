import ButtonEngine
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

    package init(seq: Int64, idPrefix: String, gesture: GestureEvent, source: Source, by sender: String? = nil) {
        self.seq = seq
        self.id = idPrefix + String(seq, radix: 36)
        self.type = gesture.type
        self.source = source
        self.t = gesture.t
        self.data = gesture.data
        self.by = sender
        self.json = []
        self.json = encode()
    }

    private func encode() -> [UInt8] {
        var w = JSONWriter(capacity: 192)
        w.raw("{")
        w.key("id", first: true)
        w.write(id)
        w.key("seq")
        w.write(seq)
        w.key("type")
        w.write(type.rawValue)
        switch source {
        case .button(let name):
            w.key("button")
            w.write(name)
        case .sheet(let name):
            w.key("sheet")
            w.write(name)
        }
        w.key("t")
        w.write(t)
        w.key("at")
        w.raw("\"")
        Timestamp.iso8601(milliseconds: t, into: &w.bytes)
        w.raw("\"")
        w.key("data")
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
        if let by {
            w.key("by")
            w.write(by)
        }
        w.raw("}")
        return w.bytes
    }
}
