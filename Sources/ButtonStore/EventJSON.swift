import Platform
import JSON

/// An event's JSON as clients see it everywhere (answers, streams, history, deliveries),
/// written in one place: the sequencer renders each new event with it once, and the store
/// renders a compact row (its typed columns, no JSON kept) with it on read, so both give the
/// same bytes.
///
/// `{"id":…,"seq":…,"type":…,"button"|"sheet":…,"t":…,"at":…,"data":{…}[,"by":…]}`: `at` is
/// derived from `t` here, never stored.
public enum EventJSON {
    /// Everything before the `data` object: `{"id":…,…,"at":…,"data":`.
    public static func head(
        id: String, seq: Int64, type: String, button: String?, sheet: String?, t: Int64, into w: inout JSONWriter
    ) {
        w.raw("{")
        w.key("id", first: true)
        w.write(id)
        w.key("seq")
        w.write(seq)
        w.key("type")
        w.write(type)
        if let button {
            w.key("button")
            w.write(button)
        } else if let sheet {
            w.key("sheet")
            w.write(sheet)
        }
        w.key("t")
        w.write(t)
        w.key("at")
        w.raw("\"")
        Timestamp.iso8601(milliseconds: t, into: &w.bytes)
        w.raw("\"")
        w.key("data")
    }

    /// Everything after the `data` object: `,"by":…` if there is a sender, and the closing brace.
    public static func tail(by: String?, into w: inout JSONWriter) {
        if let by {
            w.key("by")
            w.write(by)
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
    /// rows written before version 15 are made compact.
    static func parts(
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
