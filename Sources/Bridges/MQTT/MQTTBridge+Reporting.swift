import JSON
import Logging
import MQTT
import Platform

/// What the bridge reports: `GET /api/v1/mqtt` and its `/metrics` families.
extension MQTTBridge {
    /// `GET /api/v1/mqtt`.
    package var status: JSONValue {
        let counters = client.counters
        var object: [String: JSONValue] = [
            "enabled": true, "url": .string(url), "instance": .string(instance), "topics": .string(base),
            "connection": .string(client.connection.rawValue), "commands": .bool(acceptsCommands),
            "discovery": .bool(discovery != nil), "published": .int(Int64(counters.published)),
            "acknowledged": .int(Int64(counters.acknowledged)), "reconnects": .int(Int64(counters.reconnects)),
            "received": .int(Int64(counters.received)), "pending": .int(Int64(dispatcher.pending(MQTTEventSender.targetID))),
        ]
        if let error = client.lastError { object["lastError"] = .string(error) }
        return .object(object)
    }

    package var metrics: MQTTMetrics {
        let counters = client.counters
        return MQTTMetrics(
            connected: client.connection == .connected, published: counters.published, acknowledged: counters.acknowledged,
            reconnects: counters.reconnects)
    }

    /// The URL without its password (the whole of it: a password may hold `@` and `:`).
    static func redacted(_ url: String) -> String { URLParts(url)?.passwordRedacted ?? url }
}

/// What `/metrics` tells of the broker connection.
package struct MQTTMetrics {
    package var connected: Bool
    package var published: Int
    package var acknowledged: Int
    package var reconnects: Int

    package func render(into text: inout MetricsText) {
        text.family("buttond_mqtt_connected", .gauge, "Whether the MQTT broker is connected (1) or not (0).", connected ? 1 : 0)
        text.family("buttond_mqtt_published_total", .counter, "Messages published to the broker.", published)
        text.family("buttond_mqtt_acknowledged_total", .counter, "QoS 1 publishes the broker acknowledged.", acknowledged)
        text.family("buttond_mqtt_reconnects_total", .counter, "Connections to the broker after the first.", reconnects)
    }
}
