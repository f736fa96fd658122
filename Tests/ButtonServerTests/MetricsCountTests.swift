import Platform
import Testing

@testable import ButtonServer

/// What `/metrics` counts of requests, whichever way a request finds its counter.
@Suite struct MetricsCountTests {
    /// Requests alike in turn and interleaved each land on their own route, method and status:
    /// the counter the last request used is tried first, and a request that differs in any of
    /// the three is not counted on it.
    @Test func eachRouteMethodAndStatusCountsItsOwnRequests() {
        let metrics = Metrics(clock: .system)
        let press = "/api/v1/buttons/{id}/press", list = "/api/v1/buttons"
        let requests: [(String, String, Int)] = [
            (press, "POST", 200), (press, "POST", 200), (press, "POST", 404), (press, "POST", 200),
            (list, "GET", 200), (press, "POST", 200), (list, "POST", 200), (list, "GET", 200), (press, "GET", 405),
        ]
        for (route, method, status) in requests { metrics.request(route: route, method: method, status: status, seconds: 0.001) }
        let text = metrics.render(outboxDepth: 0, droppedDeliveries: 0, openStreams: 0, buttons: 0)
        func count(_ route: String, _ method: String, _ status: Int) -> String? {
            let prefix = #"buttond_http_requests_total{route="\#(route)",method="\#(method)",status="\#(status)"} "#
            return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        }
        #expect(count(press, "POST", 200) == "4")
        #expect(count(press, "POST", 404) == "1")
        #expect(count(list, "GET", 200) == "2")
        #expect(count(list, "POST", 200) == "1")
        #expect(count(press, "GET", 405) == "1")
        #expect(count(list, "DELETE", 200) == nil)
    }
}
