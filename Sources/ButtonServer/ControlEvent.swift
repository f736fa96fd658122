import ButtonEngine
import Foundation
import MicroHTTP

/// A control event as clients see it everywhere (responses, stream, history, webhooks,
/// scripts): the engine's gesture event plus its source, a unique id and its `seq`.
/// Serialized once, by hand, into `json`; every consumer reuses those bytes.
struct ControlEvent: Sendable {
    enum Source: Sendable, Equatable {
        case button(String)
        case sheet(String)

        var name: String {
            switch self {
            case .button(let id), .sheet(let id): id
            }
        }
    }

    var seq: Int64
    var id: String
    var type: EventType
    var source: Source
    var t: Int64
    var data: EventData
    var json: [UInt8]

    init(seq: Int64, idPrefix: String, gesture: GestureEvent, source: Source) {
        self.seq = seq
        self.id = idPrefix + String(seq, radix: 36)
        self.type = gesture.type
        self.source = source
        self.t = gesture.t
        self.data = gesture.data
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
        w.write(Timestamp.iso8601(milliseconds: t))
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
        w.raw("}}")
        return w.bytes
    }
}

/// Epoch milliseconds ↔ the ISO-8601 UTC text of `at`, without Foundation's formatters.
enum Timestamp {
    static func iso8601(milliseconds: Int64) -> String {
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
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(ms, 3))Z"
    }

    /// Now, in Unix epoch milliseconds.
    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
