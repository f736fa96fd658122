import ButtonEngine
import ButtonStore
import Platform
import JSON

/// A control event as clients see it everywhere (responses, stream, history, webhooks,
/// scripts): the engine's gesture event plus its source, a unique id and its `seq`.
/// Serialized once, by hand, into `json`; every consumer reuses those bytes.
package struct ControlEvent: Sendable {
    package enum Source: Sendable, Equatable {
        case button(String)
        case sheet(String)

        package var name: String {
            switch self {
            case .button(let id), .sheet(let id): id
            }
        }
    }

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
        switch source {
        case .button(let name): EventJSON.head(id: id, seq: seq, type: type.rawValue, button: name, sheet: nil, t: t, into: &w)
        case .sheet(let name): EventJSON.head(id: id, seq: seq, type: type.rawValue, button: nil, sheet: name, t: t, into: &w)
        }
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

/// Epoch milliseconds ↔ the ISO-8601 UTC text of `at`, without Foundation's formatters.
package enum Timestamp {
    package static func iso8601(milliseconds: Int64) -> String {
        String(decoding: iso8601Bytes(milliseconds: milliseconds), as: UTF8.self)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` as bytes.
    package static func iso8601Bytes(milliseconds: Int64) -> [UInt8] {
        var out: [UInt8] = []
        iso8601(milliseconds: milliseconds, into: &out)
        return out
    }

    /// Appends `YYYY-MM-DDTHH:MM:SS.mmmZ` to `out` (the one implementation is `EventJSON`'s).
    package static func iso8601(milliseconds: Int64, into out: inout [UInt8]) {
        EventJSON.iso8601(milliseconds: milliseconds, into: &out)
    }

    /// Now, in Unix epoch milliseconds with their fraction.
    package static func preciseNow() -> Double { SystemClock.preciseWallMilliseconds() }

    /// Now, in Unix epoch milliseconds.
    package static func now() -> Int64 { SystemClock.wallMilliseconds() }
}
