import Logging
import ThreadSupport
import ButtonStore
import Buttons
import ButtonEngine
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

        /// Hashes the status, the strings' lengths and the route's last byte, not every byte:
        /// every request counts itself here, the keys are few (routes × methods × statuses), and
        /// keys alike in all four are told apart by `==`.
        func hash(into hasher: inout Hasher) {
            hasher.combine(status)
            hasher.combine(route.utf8.count)
            hasher.combine(route.utf8.last)
            hasher.combine(method.utf8.count)
        }

        /// The status first: two keys of one route nearly always differ there if anywhere.
        static func == (a: RequestKey, b: RequestKey) -> Bool {
            a.status == b.status && a.method == b.method && a.route == b.route
        }
    }

    private struct State {
        /// Each key's count in `requestCounts`, by its place; `lastRequest` is the place the
        /// last request counted itself in: under load most requests are the one before again
        /// (a press after a press), and comparing with it costs less than hashing the key.
        var requestPlaces: [RequestKey: Int] = [:]
        var requestCounts: [(key: RequestKey, count: UInt64)] = []
        var lastRequest = -1
        /// By the role of the token presented (`none` when none was asked): never by token name,
        /// which would make the label set unbounded. Four roles at most: found by a search, which
        /// costs a request less than hashing the name.
        var requestsByRole: [(role: String, count: UInt64)] = []
        var requestDuration = Histogram()
        var events: [String: UInt64] = [:]
        var rejected: [String: UInt64] = [:]
        var deliveries: [String: UInt64] = [:]  // "kind\u{0}outcome"
        var deliveryDuration = Histogram()
        var commits: UInt64 = 0
        var committedCalls: UInt64 = 0
        var connectionsRefused: [String: UInt64] = [:]

        mutating func count(_ key: RequestKey) {
            if lastRequest >= 0, requestCounts[lastRequest].key == key {
                requestCounts[lastRequest].count += 1
                return
            }
            if let place = requestPlaces[key] {
                requestCounts[place].count += 1
                lastRequest = place
            } else {
                lastRequest = requestCounts.count
                requestPlaces[key] = lastRequest
                requestCounts.append((key, 1))
            }
        }
    }

    private let state = Locked(State())
    /// When the server started, in Unix seconds.
    let startTime: Double

    init(clock: Clock) { startTime = clock.precise() / 1000 }

    func request(route: String, method: String, status: Int, seconds: Double, role: String = "none") {
        state.withLock { s in
            s.count(RequestKey(route: route, method: method, status: status))
            if let index = s.requestsByRole.firstIndex(where: { $0.role == role }) {
                s.requestsByRole[index].count += 1
            } else {
                s.requestsByRole.append((role, 1))
            }
            s.requestDuration.observe(seconds)
        }
    }

    /// One batch: its events counted by type first (a batch holds a few types many times, and
    /// each count kept by name hashes the name), then added in one turn of the lock.
    func committed(_ events: [ControlEvent], states: [ButtonStateChange], answers: Int) {
        var counts: [(type: EventType, count: UInt64)] = []
        // By index: `for event in events` copied every event whole to read its type.
        for index in events.indices {
            let type = events[index].type
            if let known = counts.firstIndex(where: { $0.type == type }) {
                counts[known].count += 1
            } else {
                counts.append((type, 1))
            }
        }
        state.withLock { s in
            for (type, count) in counts { s.events[type.rawValue, default: 0] += count }
            s.commits += 1
            s.committedCalls += UInt64(answers)
        }
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

    /// A connection over a connection limit, answered 503 (`reason`: `total` or `per_address`).
    func connectionRefused(_ reason: String) { state.withLock { $0.connectionsRefused[reason, default: 0] += 1 } }

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

    private static func histogram(_ name: String, _ help: String, _ h: Histogram, into text: inout MetricsText) {
        text.histogram(name, help, bounds: Histogram.bounds, buckets: h.buckets, sum: h.sum, count: h.count)
    }

    func render(outboxDepth: Int, droppedDeliveries: Int, openStreams: Int, buttons: Int, mqtt: MQTTMetrics? = nil, osc: OSCMetrics? = nil) -> String {
        let s = state.withLock { $0 }
        var text = MetricsText()
        let requests = s.requestCounts.sorted { a, b in
            (a.key.route, a.key.method, a.key.status) < (b.key.route, b.key.method, b.key.status)
        }
        text.family(
            "buttond_http_requests_total", .counter, "HTTP requests by route, method and status.",
            samples: requests.map { key, value in
                ("route=\"\(Self.escape(key.route))\",method=\"\(key.method)\",status=\"\(key.status)\"", "\(value)")
            })
        text.family(
            "buttond_http_requests_by_role_total", .counter, "HTTP requests by the role of the token presented.",
            samples: s.requestsByRole.sorted(by: { $0.role < $1.role }).map { ("role=\"\($0.role)\"", "\($0.count)") })
        Self.histogram("buttond_http_request_duration_seconds", "Time to answer a request.", s.requestDuration, into: &text)
        text.family(
            "buttond_control_events_total", .counter, "Control events emitted, by type.",
            samples: s.events.sorted(by: { $0.key < $1.key }).map { ("type=\"\($0.key)\"", "\($0.value)") })
        text.family(
            "buttond_inputs_rejected_total", .counter, "Inputs refused, by reason.",
            samples: s.rejected.sorted(by: { $0.key < $1.key }).map { ("reason=\"\($0.key)\"", "\($0.value)") })
        text.family(
            "buttond_deliveries_total", .counter, "Delivery attempts by handler kind and outcome.",
            samples: s.deliveries.sorted(by: { $0.key < $1.key }).map { key, value in
                let parts = key.split(separator: "\u{0}").map(String.init)
                return ("kind=\"\(parts[0])\",outcome=\"\(parts[1])\"", "\(value)")
            })
        Self.histogram("buttond_delivery_duration_seconds", "Time one delivery attempt took.", s.deliveryDuration, into: &text)
        text.family(
            "buttond_log_commits_total", .counter, "SQLite transactions of the event log (one per sequencer batch).", s.commits)
        text.family("buttond_log_commit_calls_total", .counter, "Calls whose events those transactions carried.", s.committedCalls)
        text.family(
            "buttond_connections_refused_total", .counter,
            "Connections answered 503 for being over --max-connections (total) or --max-connections-per-ip (per_address).",
            samples: ["per_address", "total"].map { ("reason=\"\($0)\"", "\(s.connectionsRefused[$0, default: 0])") })
        text.family("buttond_outbox_depth", .gauge, "Deliveries pending or in flight.", outboxDepth)
        text.family("buttond_deliveries_dropped_total", .counter, "Unfinished deliveries dropped with their handler.", droppedDeliveries)
        text.family("buttond_sse_streams", .gauge, "Open event streams.", openStreams)
        text.family("buttond_buttons", .gauge, "Buttons registered.", buttons)
        mqtt?.render(into: &text)
        osc?.render(into: &text)
        text.family("buttond_process_start_time_seconds", .gauge, "When the process started (Unix time).", startTime)
        return text.text
    }
}
