import ThreadSupport
import ButtonStore
import Buttons
import FoundationEssentials
import Platform
import Dispatch
import Synchronization
import Bridges

/// Counters and histograms for `GET /metrics`, in the Prometheus text format. Gauges (outbox
/// depth, open streams, buttons) are read when scraped, so they cannot drift.
final class Metrics: CommitObserver {
    struct Histogram {
        static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
        var buckets = [UInt64](repeating: 0, count: bounds.count)
        var count: UInt64 = 0
        var sum: Double = 0

        mutating func observe(_ seconds: Double) {
            count += 1
            sum += seconds
            if let index = Self.bounds.firstIndex(where: { seconds <= $0 }) { buckets[index] += 1 }
        }
    }

    struct RequestKey: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    private struct State {
        var requests: [RequestKey: UInt64] = [:]
        /// By the role of the token presented (`none` when none was asked): never by token name,
        /// which would make the label set unbounded.
        var requestsByRole: [String: UInt64] = [:]
        var requestDuration = Histogram()
        var events: [String: UInt64] = [:]
        var rejected: [String: UInt64] = [:]
        var deliveries: [String: UInt64] = [:]  // "kind\u{0}outcome"
        var deliveryDuration = Histogram()
        var commits: UInt64 = 0
        var committedCalls: UInt64 = 0
    }

    private let state = Locked(State())
    let startTime = Date().timeIntervalSince1970

    func request(route: String, method: String, status: Int, seconds: Double, role: String = "none") {
        state.withLock { s in
            s.requests[RequestKey(route: route, method: method, status: status), default: 0] += 1
            s.requestsByRole[role, default: 0] += 1
            s.requestDuration.observe(seconds)
        }
    }

    func committed(_ events: [ControlEvent], states: [ButtonStateChange], answers: Int) {
        self.events(events.map(\.type.rawValue))
        commit(calls: answers)
    }

    func events(_ types: [String]) {
        guard !types.isEmpty else { return }
        state.withLock { s in for type in types { s.events[type, default: 0] += 1 } }
    }

    static func rejectionReason(status: Int) -> String {
        switch status {
        case 400: "malformed"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "not_found"
        case 409: "conflict"
        case 413: "too_large"
        case 415: "not_json"
        case 422: "invalid"
        case 429, 503: "busy"
        default: "other"
        }
    }

    /// One batch transaction of the sequencer that answered `calls` requests.
    func commit(calls: Int) {
        state.withLock { s in
            s.commits += 1
            s.committedCalls += UInt64(calls)
        }
    }

    func rejected(_ reason: String) { state.withLock { $0.rejected[reason, default: 0] += 1 } }

    func delivery(kind: String, outcome: String, seconds: Double) {
        state.withLock { s in
            s.deliveries["\(kind)\u{0}\(outcome)", default: 0] += 1
            s.deliveryDuration.observe(seconds)
        }
    }

    static func escape(_ value: String) -> String {
        value.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
            .replacing("\n", with: "\\n")
    }

    private static func histogram(_ name: String, _ h: Histogram, into text: inout String) {
        var cumulative: UInt64 = 0
        for (bound, count) in zip(Histogram.bounds, h.buckets) {
            cumulative += count
            text += "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        text += "\(name)_bucket{le=\"+Inf\"} \(h.count)\n\(name)_sum \(h.sum)\n\(name)_count \(h.count)\n"
    }

    func render(outboxDepth: Int, droppedDeliveries: Int, openStreams: Int, buttons: Int, mqtt: MQTTMetrics? = nil, osc: OSCMetrics? = nil) -> String {
        let s = state.withLock { $0 }
        var text = ""
        text += "# HELP buttond_http_requests_total HTTP requests by route, method and status.\n# TYPE buttond_http_requests_total counter\n"
        let requests = s.requests.sorted { a, b in
            (a.key.route, a.key.method, a.key.status) < (b.key.route, b.key.method, b.key.status)
        }
        for (key, value) in requests {
            text += "buttond_http_requests_total{route=\"\(Self.escape(key.route))\",method=\"\(key.method)\",status=\"\(key.status)\"} \(value)\n"
        }
        text += "# HELP buttond_http_requests_by_role_total HTTP requests by the role of the token presented.\n"
        text += "# TYPE buttond_http_requests_by_role_total counter\n"
        for (role, value) in s.requestsByRole.sorted(by: { $0.key < $1.key }) {
            text += "buttond_http_requests_by_role_total{role=\"\(role)\"} \(value)\n"
        }
        text += "# HELP buttond_http_request_duration_seconds Time to answer a request.\n# TYPE buttond_http_request_duration_seconds histogram\n"
        Self.histogram("buttond_http_request_duration_seconds", s.requestDuration, into: &text)
        text += "# HELP buttond_control_events_total Control events emitted, by type.\n# TYPE buttond_control_events_total counter\n"
        for (type, value) in s.events.sorted(by: { $0.key < $1.key }) { text += "buttond_control_events_total{type=\"\(type)\"} \(value)\n" }
        text += "# HELP buttond_inputs_rejected_total Inputs refused, by reason.\n# TYPE buttond_inputs_rejected_total counter\n"
        for (reason, value) in s.rejected.sorted(by: { $0.key < $1.key }) { text += "buttond_inputs_rejected_total{reason=\"\(reason)\"} \(value)\n" }
        text += "# HELP buttond_deliveries_total Delivery attempts by handler kind and outcome.\n# TYPE buttond_deliveries_total counter\n"
        for (key, value) in s.deliveries.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "\u{0}").map(String.init)
            text += "buttond_deliveries_total{kind=\"\(parts[0])\",outcome=\"\(parts[1])\"} \(value)\n"
        }
        text += "# HELP buttond_delivery_duration_seconds Time one delivery attempt took.\n# TYPE buttond_delivery_duration_seconds histogram\n"
        Self.histogram("buttond_delivery_duration_seconds", s.deliveryDuration, into: &text)
        text += "# HELP buttond_log_commits_total SQLite transactions of the event log (one per sequencer batch).\n# TYPE buttond_log_commits_total counter\n"
        text += "buttond_log_commits_total \(s.commits)\n"
        text += "# HELP buttond_log_commit_calls_total Calls whose events those transactions carried.\n# TYPE buttond_log_commit_calls_total counter\n"
        text += "buttond_log_commit_calls_total \(s.committedCalls)\n"
        text += "# HELP buttond_outbox_depth Deliveries pending or in flight.\n# TYPE buttond_outbox_depth gauge\nbuttond_outbox_depth \(outboxDepth)\n"
        text += "# HELP buttond_deliveries_dropped_total Unfinished deliveries dropped with their handler.\n"
            + "# TYPE buttond_deliveries_dropped_total counter\nbuttond_deliveries_dropped_total \(droppedDeliveries)\n"
        text += "# HELP buttond_sse_streams Open event streams.\n# TYPE buttond_sse_streams gauge\nbuttond_sse_streams \(openStreams)\n"
        text += "# HELP buttond_buttons Buttons registered.\n# TYPE buttond_buttons gauge\nbuttond_buttons \(buttons)\n"
        if let mqtt {
            text += "# HELP buttond_mqtt_connected Whether the MQTT broker is connected (1) or not (0).\n# TYPE buttond_mqtt_connected gauge\n"
            text += "buttond_mqtt_connected \(mqtt.connected ? 1 : 0)\n"
            text += "# HELP buttond_mqtt_published_total Messages published to the broker.\n# TYPE buttond_mqtt_published_total counter\n"
            text += "buttond_mqtt_published_total \(mqtt.published)\n"
            text += "# HELP buttond_mqtt_acknowledged_total QoS 1 publishes the broker acknowledged.\n"
                + "# TYPE buttond_mqtt_acknowledged_total counter\nbuttond_mqtt_acknowledged_total \(mqtt.acknowledged)\n"
            text += "# HELP buttond_mqtt_reconnects_total Connections to the broker after the first.\n"
                + "# TYPE buttond_mqtt_reconnects_total counter\nbuttond_mqtt_reconnects_total \(mqtt.reconnects)\n"
        }
        osc?.render(into: &text)
        text += "# HELP buttond_process_start_time_seconds When the process started (Unix time).\n# TYPE buttond_process_start_time_seconds gauge\n"
        text += "buttond_process_start_time_seconds \(startTime)\n"
        return text
    }
}

/// Tells each of several observers of every committed batch.
struct CommitObservers: CommitObserver {
    let observers: [any CommitObserver]

    init(_ observers: [any CommitObserver]) { self.observers = observers }

    func committed(_ events: [ControlEvent], states: [ButtonStateChange], answers: Int) {
        for observer in observers { observer.committed(events, states: states, answers: answers) }
    }
}
