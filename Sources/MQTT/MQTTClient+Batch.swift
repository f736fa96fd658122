import CMosquitto
import Platform

extension MQTTClient {
    /// Publishes `messages` at QoS 1, in order, all before waiting, then waits until the broker
    /// acknowledged each or `timeout` seconds passed: one round trip for the run instead of one
    /// per message (the broker keeps the order of a connection's messages). One result per
    /// message; once one could not be sent, the rest are not sent (`notConnected` or the error).
    public func publishAll(_ messages: [Message], timeout: Double) -> [PublishResult] {
        guard let handle else { return messages.map { _ in .failed(configurationError ?? "not configured") } }
        lock.lock()
        defer { lock.unlock() }
        if let thread = state.networkThread, pthread_equal(thread, pthread_self()) != 0 {
            return messages.map { _ in .failed("publish cannot wait on the MQTT network thread: use send") }
        }
        var results: [PublishResult?] = Array(repeating: nil, count: messages.count)
        var ids: [(index: Int, mid: Int32)] = []
        for (index, message) in messages.enumerated() {
            guard state.connection == .connected else {
                results[index] = .notConnected
                continue
            }
            if let failed = results[..<index].last(where: { $0 != nil }) ?? nil {
                results[index] = failed
                continue
            }
            var mid: Int32 = 0
            let rc = Self.publish(handle, message, qos: min(max(message.qos, 1), 2), mid: &mid)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                results[index] = rc == MOSQ_ERR_NO_CONN.rawValue ? .notConnected : .failed(describe(rc))
                continue
            }
            state.counters.published += 1
            state.waiting[mid] = false
            ids.append((index, mid))
        }
        defer { for (_, mid) in ids { state.waiting[mid] = nil } }
        let deadline = monotonicSeconds() + timeout
        for (index, mid) in ids {
            while state.waiting[mid] == false {
                let left = deadline - monotonicSeconds()
                if left <= 0 { break }
                lock.wait(seconds: left)
            }
            results[index] = state.waiting[mid] == true ? .acknowledged : .timedOut
        }
        return results.map { $0 ?? .notConnected }
    }
}
