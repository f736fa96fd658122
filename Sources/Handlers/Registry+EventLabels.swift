import ButtonEngine
import Buttons

extension Registry {
    /// What a handler's `{label}` reads for an event's button or sheet (`HandlerRegistry`'s
    /// `labels`).
    package var eventLabels: @Sendable (ControlEvent) -> EventLabels {
        { [self] event in
            switch event.source {
            case .button(let id):
                guard let slot = try? button(id) else { return EventLabels() }
                return slot.locked {
                    let faces = slot.definition.faces
                    let face = event.data.face.flatMap { faces.indices.contains(Int($0)) ? faces[Int($0)].label : nil }
                    return EventLabels(label: slot.definition.label, face: face)
                }
            case .sheet(let id):
                guard let slot = try? sheet(id) else { return EventLabels() }
                return slot.locked {
                    let option = slot.definition.options.first { $0.id == event.data.option }?.label
                    return EventLabels(label: slot.definition.label, option: option)
                }
            }
        }
    }
}
