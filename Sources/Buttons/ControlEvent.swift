import ButtonEngine
import Platform
import JSON

/// A control event as clients see it everywhere (responses, stream, history, webhooks,
/// scripts): the engine's gesture event plus its source, a unique id and its `seq`.
/// Serialized once, by hand, into `json`; every consumer reuses those bytes.
///
/// A class, not a struct: an event is made once and then handed around whole (the batch, the
/// answer of each caller, the stream, the deliveries, the log), and a copy of a struct of
/// seven strings and arrays retained and released each of them, a quarter of the reference
/// counting a press did.
package final class ControlEvent: Sendable {
    package let seq: Int64
    /// The run's id prefix, shared by every event of the run (the id is it and `seq`).
    package let idPrefix: String
    package let type: EventType
    package let source: Source
    package let t: Int64
    package let data: EventData
    /// Who sent the input that caused it: a named token's name, `mqtt` or `osc` (SPEC §6).
    package let by: String?
    package let json: [UInt8]
    /// Where the data object lies in `json`: what the event log keeps of it besides the columns.
    package let dataRange: Range<Int>

    package convenience init(seq: Int64, idPrefix: String, gesture: GestureEvent, source: Source, by sender: String? = nil) {
        var timestamps = ISO8601Cache()
        self.init(seq: seq, idPrefix: idPrefix, gesture: gesture, source: source, by: sender, timestamps: &timestamps)
    }

    /// An event whose `at` is written with `timestamps`: the batch's, for its many events.
    package init(
        seq: Int64, idPrefix: String, gesture: GestureEvent, source: Source, by sender: String?, timestamps: inout ISO8601Cache
    ) {
        let encoded = Self.encode(
            idPrefix: idPrefix, seq: seq, gesture: gesture, source: source, by: sender, timestamps: &timestamps)
        self.seq = seq
        self.idPrefix = idPrefix
        self.type = gesture.type
        self.source = source
        self.t = gesture.t
        self.data = gesture.data
        self.by = sender
        self.json = encoded.json
        self.dataRange = encoded.dataRange
    }

    /// `idPrefix` then `seq` in base 36: made when asked (a webhook's row, a history row of
    /// another run), not for every event, whose own JSON already holds it.
    package var id: String { EventID.string(prefix: idPrefix, seq: seq) }

    /// Renders the event with `EventJSON` (what the store renders a compact row with) and
    /// says where its data object lies, which is all of it the row keeps. One pass of plain
    /// stores on the stack, then one array of the event's size.
    private static func encode(
        idPrefix: String, seq: Int64, gesture: GestureEvent, source: Source, by: String?, timestamps: inout ISO8601Cache
    ) -> (json: [UInt8], dataRange: Range<Int>) {
        let type = gesture.type.rawValue
        let (button, sheet) = (source.button, source.sheet)
        let bound = EventJSON.headBound(idPrefix: idPrefix, type: type, button: button, sheet: sheet)
            + EventJSON.dataBound(of: gesture.data)
            + EventJSON.tailBound(by: by)
        var dataRange = 0..<0
        let json = JSONCursor.render(bound: bound) { w in
            EventJSON.head(
                idPrefix: idPrefix, seq: seq, type: type, button: button, sheet: sheet, t: gesture.t,
                timestamps: &timestamps, into: &w)
            let dataStart = w.count
            EventJSON.data(gesture.data, into: &w)
            dataRange = dataStart..<w.count
            EventJSON.tail(by: by, into: &w)
        }
        return (json, dataRange)
    }
}
