import Outbox
import Platform

extension DeliveryRow {
    /// A delivery of `event` to `target` (a handler's id, or a target of the server's own such
    /// as MQTT publishing), due now: the event's facts, typed, and an id from `ids`.
    package init(of event: ControlEvent, to target: String, ids: DeliveryIDs, now: Int64) {
        let facts = DeliveryEvent(
            seq: event.seq, id: event.id, type: event.type, source: event.source, t: event.t,
            face: event.data.face.map { Int($0) }, option: event.data.option, json: event.json)
        // Ids grow from `now` (in microseconds); `next` keeps them unique and growing.
        self.init(id: ids.next(nowMicros: max(0, now) * 1000), handler: target, nextAttemptAt: now, createdAt: now, event: facts)
    }
}

/// Several parts' rules, asked in turn: the handlers', then each target of the server's own
/// (MQTT publishing). Each part's rows come in event order, so each target's do.
package struct CombinedDeliveryRules: DeliveryRules {
    let parts: [any DeliveryRules]

    package init(_ parts: [any DeliveryRules]) { self.parts = parts }

    package func deliveries(for events: ArraySlice<ControlEvent>, now: Int64) -> [DeliveryRow] {
        parts.count == 1 ? parts[0].deliveries(for: events, now: now) : parts.flatMap { $0.deliveries(for: events, now: now) }
    }
}
