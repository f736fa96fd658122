import CurlHTTP
import Foundation
import MicroHTTP
import Synchronization
import Testing

/// Filtered history read by many clients at once: every page that is served is the right
/// one; a read beyond the store's reader limit is a 503 with `Retry-After`, never a wrong or
/// partial page.
@Suite struct HistoryReadTests {
    static func seqs(_ reply: HTTPClient.Reply) -> [Int64] {
        (reply.json["events"]?.array ?? []).compactMap { $0["seq"]?.int }
    }

    @Test func concurrentFilteredReadsReturnCorrectPages() throws {
        let server = try TestServer()
        try server.createButton(#"{"id": "quiet", "maxTaps": 1}"#)
        try server.createButton(#"{"id": "loud", "maxTaps": 1}"#)
        try server.post("/api/v1/buttons/quiet/press", #"{"t": 100000000000}"#)
        // 500 presses of `loud` (4 events each, seq 5 to 2004) after the 4 events of `quiet`.
        for batch in 0..<2 {
            let inputs = (0..<250).flatMap { k -> [String] in
                let t = 100_000_000_100 + (batch * 250 + k) * 10
                return ["{\"button\": \"loud\", \"type\": \"down\", \"t\": \(t)}", "{\"button\": \"loud\", \"type\": \"up\", \"t\": \(t + 5)}"]
            }
            #expect(try server.post("/api/v1/input", "[" + inputs.joined(separator: ", ") + "]").status == 200)
        }
        #expect(Self.seqs(try server.client.get("/api/v1/events?button=quiet&after=0")) == [1, 2, 3, 4])
        #expect(Self.seqs(try server.client.get("/api/v1/events?limit=1")) == [2004])
        let urls: [(String, [Int64])] = [
            ("/api/v1/events?button=quiet&after=0", [1, 2, 3, 4]),
            ("/api/v1/events?button=quiet&after=2", [3, 4]),
            ("/api/v1/events?button=quiet", [1, 2, 3, 4]),
            ("/api/v1/events?button=loud&after=500&limit=50", Array(501...550)),
            ("/api/v1/events?button=loud&limit=20", Array(1985...2004)),
        ]
        let served = Atomic<Int>(0)
        let wrong = Mutex<[String]>([])
        let running = Atomic<Int>(8)
        for client in 0..<8 {
            // Threads of their own: the shared pool may be busy with other tests.
            Thread {
                let http = HTTPClient(port: server.app.port)
                for round in 0..<25 {
                    let (url, expected) = urls[(client + round) % urls.count]
                    guard let reply = try? http.get(url) else { continue }
                    if reply.status == 200, Self.seqs(reply) == expected {
                        served.add(1, ordering: .relaxed)
                    } else if reply.status != 503 || reply.headers["retry-after"] == nil {
                        wrong.withLock { $0.append("\(url): \(reply.status) \(reply.text.prefix(200))") }
                    }
                }
                running.subtract(1, ordering: .relaxed)
            }.start()
        }
        while running.load(ordering: .relaxed) > 0 { usleep(1000) }
        #expect(wrong.withLock { $0 }.isEmpty, "\(wrong.withLock { $0 })")
        #expect(served.load(ordering: .relaxed) > 100)
    }
}
