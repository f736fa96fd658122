import ButtonStore
import JSON

extension Placeholders {
    /// The placeholders of a delivery's event, from its typed facts (no JSON to parse).
    public init(_ event: DeliveryEvent) {
        self.init(
            button: event.source, type: event.type, seq: event.seq, t: event.t, face: event.face.map { String($0) } ?? "",
            option: event.option ?? "", label: event.label ?? "", id: event.id)
        optionLabel = event.optionLabel ?? ""
        faceLabel = event.faceLabel ?? ""
        if event.option != nil, case .int(let v)? = (try? JSONParser.parse(event.json))?["data"]?["index"] { index = String(v) }
    }
}
