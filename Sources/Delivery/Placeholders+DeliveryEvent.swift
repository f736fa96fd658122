import Outbox
import JSON

extension Placeholders {
    /// The placeholders of a delivery's event, from its typed facts (no JSON to parse).
    public init(_ event: DeliveryEvent) {
        self.init(
            button: event.source.id, type: event.type.rawValue, seq: event.seq, t: event.t, face: event.face.map { String($0) } ?? "",
            option: event.option ?? "", label: event.label ?? "", id: event.id)
        optionLabel = event.optionLabel ?? ""
        faceLabel = event.faceLabel ?? ""
        // `index` and `by` are in the event's JSON only; it is parsed when it has them. The
        // server writes `by` last (`…},"by":"name"}`), so its JSON then ends with `"}`.
        let hasBy = event.json.count > 2 && event.json[event.json.count - 2] == UInt8(ascii: "\"")
        let parsed = event.option != nil || hasBy ? try? JSONParser.parse(event.json) : nil
        if event.option != nil, case .int(let v)? = parsed?["data"]?["index"] { index = String(v) }
        if case .string(let v)? = parsed?["by"] { by = v }
    }
}
