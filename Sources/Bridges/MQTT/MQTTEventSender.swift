import Buttons
import Outbox
import ButtonEngine
import ButtonStore
import Delivery
import MQTT

/// Publishes committed events (the deliveries of the target `mqtt`, the server's own: handler
/// ids are `hdl_…`, so none is taken for a handler's) to
/// `<base>/button/<id>/event` (sheets: `…/sheet/<id>/event`), QoS 1, in order, and a gesture's
/// `{"event_type": …}` to `<base>/button/<id>/gesture` for Home Assistant's event entity. A
/// delivery is done when the broker acknowledged it; with the broker away it waits, in order.
package struct MQTTEventSender: BlockingDeliverySender {
    /// The dispatcher's target of the MQTT deliveries, which the delivery log shows as their
    /// handler.
    package static let targetID = "mqtt"

    /// MQTT publishing's rules: every event makes one delivery to `targetID`.
    package struct Rules: DeliveryRules {
        let ids: DeliveryIDs

        package init(ids: DeliveryIDs) { self.ids = ids }

        package func deliveries(for events: ArraySlice<ControlEvent>, now: Int64) -> [DeliveryRow] {
            events.map { DeliveryRow(of: $0, to: MQTTEventSender.targetID, ids: ids, now: now) }
        }
    }

    let client: MQTTClient
    let base: String
    /// The bridge's own: a broker that is slow to acknowledge holds none of the handlers'.
    package let threads: DeliveryThreads
    package let kind = "mqtt"
    package let destination = "sender:mqtt"
    package let batchLimit = 256
    /// Seconds to wait for the broker's acknowledgement.
    var timeout = 5.0

    package var isReady: Bool { client.isConnected }  // asked under the dispatcher's lock: never waits

    /// Waits for the broker's acknowledgements.
    package func sendWaiting(_ rows: [DeliveryRow]) -> [AttemptResult] {
        let messages = rows.map { row in
            let event = row.event
            return MQTTClient.Message(topic: "\(base)/\(event.source.kind)/\(event.source.id)/event", payload: event.json, qos: 1, retain: false)
        }
        let results = client.publishAll(messages, timeout: timeout).map(Self.result)
        for (row, result) in zip(rows, results) where result.outcome == .ok {
            guard case .button(let button) = row.event.source, let gesture = HomeAssistantDiscovery.gesture(row.event.type) else { continue }
            client.send(MQTTClient.Message(topic: "\(base)/button/\(button)/gesture", payload: gesture, qos: 1, retain: false))
        }
        return results
    }

    static func result(_ published: MQTTClient.PublishResult) -> AttemptResult {
        switch published {
        case .acknowledged: AttemptResult(outcome: .ok)
        case .notConnected: AttemptResult(outcome: .connect, output: "the broker is not connected")
        case .timedOut: AttemptResult(outcome: .timeout, output: "the broker did not acknowledge in time")
        case .failed(let message): AttemptResult(outcome: .connect, output: message)
        }
    }
}
