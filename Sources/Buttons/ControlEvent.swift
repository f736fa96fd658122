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

    /// Appends `YYYY-MM-DDTHH:MM:SS.mmmZ` to `out`, with no intermediate buffer (it is on the
    /// hot path: every event's `at`).
    package static func iso8601(milliseconds: Int64, into out: inout [UInt8]) {
        let ms = Int(((milliseconds % 1000) + 1000) % 1000)
        let seconds = (milliseconds - Int64(ms)) / 1000
        var days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        // Howard Hinnant's civil_from_days.
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = min(max(yearOfEra + era * 400 + (month <= 2 ? 1 : 0), 0), 9999)
        func put(_ value: Int, width: Int, then separator: UInt8) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
            out.append(separator)
        }
        put(year, width: 4, then: UInt8(ascii: "-"))
        put(month, width: 2, then: UInt8(ascii: "-"))
        put(day, width: 2, then: UInt8(ascii: "T"))
        put(secondOfDay / 3600, width: 2, then: UInt8(ascii: ":"))
        put(secondOfDay / 60 % 60, width: 2, then: UInt8(ascii: ":"))
        put(secondOfDay % 60, width: 2, then: UInt8(ascii: "."))
        put(ms, width: 3, then: UInt8(ascii: "Z"))
    }

    /// Now, in Unix epoch milliseconds with their fraction.
    package static func preciseNow() -> Double { SystemClock.preciseWallMilliseconds() }

    /// Now, in Unix epoch milliseconds.
    package static func now() -> Int64 { SystemClock.wallMilliseconds() }
}
