import Platform
import JSON

/// An event's JSON as clients see it everywhere (answers, streams, history, deliveries),
/// written in one place, beside the events it renders: the sequencer renders each new event
/// with it once (`ControlEvent`), and the store renders a compact row (its typed columns, no
/// JSON kept) with it on read, so both give the same bytes. Pure: no clock, no I/O.
///
/// `{"id":…,"seq":…,"type":…,"button"|"sheet":…,"t":…,"at":…,"data":{…}[,"by":…]}`: `at` is
/// derived from `t` here, never stored; `data` is the event's `EventData`, nil fields left out.
public enum EventJSON {
    /// Everything before the `data` object: `{"id":…,…,"at":…,"data":`.
    public static func head(
        id: String, seq: Int64, type: String, button: String?, sheet: String?, t: Int64, into w: inout JSONWriter
    ) {
        var timestamps = ISO8601Cache()
        w.append(bound: headBound(id: id, type: type, button: button, sheet: sheet)) { cursor in
            head(id: id, seq: seq, type: type, button: button, sheet: sheet, t: t, timestamps: &timestamps, into: &cursor)
        }
    }

    /// Most bytes `head` writes for these strings.
    public static func headBound(id: String, type: String, button: String?, sheet: String?) -> Int {
        headPunctuation.utf8CodeUnitCount + JSONCursor.bound(of: id) + JSONCursor.bound(of: type)
            + JSONCursor.bound(of: button ?? sheet ?? "") + 2 * JSONCursor.integerBound + Timestamp.iso8601Length
    }

    /// What `head` writes besides its values (strings' quotes are in their bounds).
    private static let headPunctuation: StaticString = #"{"id":,"seq":,"type":,"button":,"t":,"at":"","data":"#

    /// `head` through a cursor of at least `headBound` bytes; `at` from `timestamps`.
    package static func head(
        id: String, seq: Int64, type: String, button: String?, sheet: String?, t: Int64, timestamps: inout ISO8601Cache,
        into w: inout JSONCursor
    ) {
        head(seq: seq, type: type, button: button, sheet: sheet, t: t, timestamps: &timestamps, into: &w) { $0.string(id) }
    }

    /// `head` of an event whose id is `idPrefix` and its seq (`EventID`), written in place,
    /// through a cursor of at least `headBound(idPrefix:…)` bytes.
    package static func head(
        idPrefix: String, seq: Int64, type: String, button: String?, sheet: String?, t: Int64,
        timestamps: inout ISO8601Cache, into w: inout JSONCursor
    ) {
        head(seq: seq, type: type, button: button, sheet: sheet, t: t, timestamps: &timestamps, into: &w) {
            EventID.write(prefix: idPrefix, seq: seq, into: &$0)
        }
    }

    /// Most bytes `head(idPrefix:…)` writes for these strings.
    public static func headBound(idPrefix: String, type: String, button: String?, sheet: String?) -> Int {
        headBound(id: "", type: type, button: button, sheet: sheet) + EventID.bound(prefix: idPrefix)
    }

    private static func head(
        seq: Int64, type: String, button: String?, sheet: String?, t: Int64, timestamps: inout ISO8601Cache,
        into w: inout JSONCursor, id: (inout JSONCursor) -> Void
    ) {
        w.raw(#"{"id":"#)
        id(&w)
        w.raw(#","seq":"#)
        w.integer(seq)
        w.raw(#","type":"#)
        w.string(type)
        if let button {
            w.raw(#","button":"#)
            w.string(button)
        } else if let sheet {
            w.raw(#","sheet":"#)
            w.string(sheet)
        }
        w.raw(#","t":"#)
        w.integer(t)
        w.raw(#","at":""#)
        w.fixed(Timestamp.iso8601Length) { timestamps.iso8601(milliseconds: t, into: $0) }
        w.raw(#"","data":"#)
    }

    /// The data object, nil fields left out, through a cursor of at least `dataBound(of:)` bytes.
    public static func data(_ data: EventData, into w: inout JSONCursor) {
        w.raw("{")
        var first = true
        func key(_ name: StaticString) {
            w.key(name, first: first)
            first = false
        }
        if let v = data.durationMs { key("durationMs"); w.integer(v) }
        if let v = data.tapCount { key("tapCount"); w.integer(Int64(v)) }
        if let v = data.face { key("face"); w.integer(Int64(v)) }
        if let v = data.previousFace { key("previousFace"); w.integer(Int64(v)) }
        if let v = data.repeat { key("repeat"); w.integer(Int64(v)) }
        if let v = data.option { key("option"); w.string(v) }
        if let v = data.index { key("index"); w.integer(Int64(v)) }
        if let v = data.reason { key("reason"); w.string(v) }
        if let v = data.pointer { key("pointer"); w.string(v) }
        if let v = data.windowMs { key("windowMs"); w.integer(v) }
        w.raw("}")
    }

    /// Most bytes `data(_:into:)` takes for `data`: the braces, and each field's key
    /// (`,"previousFace":` the longest) with its value.
    public static func dataBound(of data: EventData) -> Int {
        let field = 16
        func number<T>(_ value: T?) -> Int { value == nil ? 0 : field + JSONCursor.integerBound }
        func string(_ value: String?) -> Int { value.map { field + JSONCursor.bound(of: $0) } ?? 0 }
        return 2 + number(data.durationMs) + number(data.tapCount) + number(data.face) + number(data.previousFace)
            + number(data.repeat) + string(data.option) + number(data.index) + string(data.reason) + string(data.pointer)
            + number(data.windowMs)
    }

    /// Everything after the `data` object: `,"by":…` if there is a sender, and the closing brace.
    public static func tail(by: String?, into w: inout JSONWriter) {
        w.append(bound: tailBound(by: by)) { tail(by: by, into: &$0) }
    }

    /// Most bytes `tail` writes.
    public static func tailBound(by: String?) -> Int {
        tailPunctuation.utf8CodeUnitCount + (by.map(JSONCursor.bound(of:)) ?? 0)
    }

    private static let tailPunctuation: StaticString = #","by":}"#

    /// `tail` through a cursor of at least `tailBound` bytes.
    public static func tail(by: String?, into w: inout JSONCursor) {
        if let by {
            w.key("by")
            w.string(by)
        }
        w.raw("}")
    }

    /// A whole event from its parts; `data` is the data object's JSON (nil: `{}`).
    public static func render(
        id: String, seq: Int64, type: String, button: String?, sheet: String?, t: Int64, data: [UInt8]?, by: String?
    ) -> [UInt8] {
        var w = JSONWriter(capacity: 160 + (data?.count ?? 2))
        head(id: id, seq: seq, type: type, button: button, sheet: sheet, t: t, into: &w)
        if let data { w.bytes.append(contentsOf: data) } else { w.raw("{}") }
        tail(by: by, into: &w)
        return w.bytes
    }


    /// The parts of an event's JSON written by `render`, or nil if `json` is not exactly what
    /// `render` makes of its row's columns (then the row keeps its JSON as it is). Used when
    /// the store makes rows written before its version 15 compact.
    package static func parts(
        of json: [UInt8], id: String, seq: Int64, type: String, button: String?, sheet: String?, t: Int64
    ) -> (data: [UInt8]?, by: String?)? {
        guard case .object(let object)? = try? JSONParser.parse(json) else { return nil }
        var by: String?
        switch object["by"] {
        case nil: by = nil
        case .string(let name)?: by = name
        default: return nil
        }
        var head = JSONWriter(capacity: 160)
        Self.head(id: id, seq: seq, type: type, button: button, sheet: sheet, t: t, into: &head)
        var tail = JSONWriter(capacity: 32)
        Self.tail(by: by, into: &tail)
        guard json.count > head.bytes.count + tail.bytes.count, json.starts(with: head.bytes),
            json.suffix(tail.bytes.count).elementsEqual(tail.bytes)
        else { return nil }
        let data = Array(json[head.bytes.count..<(json.count - tail.bytes.count)])
        // What lies between must be one JSON object, and the whole must be that object's event.
        guard case .object? = try? JSONParser.parse(data) else { return nil }
        guard render(id: id, seq: seq, type: type, button: button, sheet: sheet, t: t, data: data, by: by) == json else {
            return nil
        }
        return (data == Array("{}".utf8) ? nil : data, by)
    }
}
