import Buttons
import Dispatch
import JSON
import Logging
import Platform

/// A button or sheet deleted while Home Assistant was away leaves no orphan device (SPEC §9):
/// what Home Assistant was told of it is kept for 30 days and told again, then cleared, when
/// Home Assistant comes back.
extension MQTTBridge {
    /// Keeps what Home Assistant was told of a deleted button or sheet, to tell it again.
    func bury(_ owner: String, configs: [String: [UInt8]]) {
        guard discovery != nil, !configs.isEmpty else { return }
        let entries: [JSONValue] = configs.sorted { $0.key < $1.key }.map { topic, payload in
            ["topic": .string(topic), "payload": .string(String(decoding: payload, as: UTF8.self))]
        }
        let document = JSONValue.array(entries)
        do {
            try registry.store.saveTombstone(owner: owner, configs: JSONWriter.encode(document), at: clock.now())
        } catch {
            logger.log(.warn, "mqtt could not keep a tombstone", ["owner": owner, "error": error.description])
        }
    }

    /// Home Assistant is back: each tombstone's configs are published, so it knows the device
    /// in this run, and cleared a moment later, so it removes it (it ignores an empty config
    /// for something it has not discovered since it started).
    func replayTombstones() {
        let since = clock.now() - Self.tombstoneMs
        guard let buried = try? registry.store.tombstones(since: since), !buried.isEmpty else { return }
        var replayed: [String] = []
        for (_, document) in buried {
            guard case .array(let entries)? = try? JSONParser.parse(document) else { continue }
            for entry in entries {
                guard case .string(let topic)? = entry["topic"], case .string(let payload)? = entry["payload"] else { continue }
                client.send(.init(topic: topic, payload: Array(payload.utf8), qos: 1, retain: true))
                replayed.append(topic)
            }
        }
        let topics = replayed
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.tombstoneReplaySeconds) { [self] in
            configTopics.withLock { known in
                // A button made again meanwhile keeps its topics.
                for topic in topics where !known.values.contains(where: { $0[topic] != nil }) {
                    client.send(.init(topic: topic, payload: [], qos: 1, retain: true))
                }
            }
        }
        logger.log(.info, "mqtt replayed tombstones for Home Assistant", ["devices": String(buried.count)])
    }

    /// How long a replayed tombstone's config stands before it is cleared.
    static let tombstoneReplaySeconds = 2.0

}
