import ButtonServer
import Foundation
import MicroHTTP
import Testing
import TestSupport
import CurlHTTP

private final class StopFlag: @unchecked Sendable {  // `value` is guarded by `lock`
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
    private var count = 0
    /// Presses answered so far.
    var presses: Int { lock.withLock { count } }
    func pressed() { lock.withLock { count += 1 } }
}

/// What deleting a handler or a button leaves of the delivery log.
extension DeliveryLogRouteTests {
    @Test func deletingAHandlerDropsItsWholeLogAndItsPendingDeliveries() throws {
        let (server, sink) = try Self.serverWithButton()
        let fine = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        let hung = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/hold/h"), webhook: #", "timeoutMs": 30000"#))
        for _ in 0..<3 { try Self.tap(server) }
        let finished = try eventually(seconds: 60, { try Self.list(server, "handler=\(fine)") }, until: { $0.count == 3 && $0.allSatisfy { $0["status"] == "ok" } })
        #expect(sink.wait { $0.contains { $0.path == "/hold/h" } }.filter { $0.path == "/hold/h" }.count == 1)
        let stuck = try eventually(
            seconds: 60, { try Self.list(server, "handler=\(hung)") },
            until: { $0.count == 3 && $0.last?["status"] == "in_flight" })
        #expect(stuck.map { $0["status"]?.string ?? "" } == ["pending", "pending", "in_flight"])
        #expect(try Self.list(server, "status=in_flight&handler=\(hung)").map { $0["id"] } == [stuck.last?["id"]])
        #expect(try Self.list(server, "status=pending&handler=\(hung)").count == 2)
        #expect(try Self.outboxDepth(server) == 3)

        // Finished rows go with their handler too.
        #expect(try server.client.request("DELETE", "/api/v1/handlers/\(fine)").status == 204)
        #expect(try Self.list(server, "handler=\(fine)").isEmpty)
        for id in Self.ids(finished) { #expect(try Self.detail(server, id).status == 404) }
        #expect(try Self.outboxDepth(server) == 3)

        // Pending and in-flight ones are dropped at once: the outbox is empty right away.
        #expect(try server.client.request("DELETE", "/api/v1/handlers/\(hung)").status == 204)
        #expect(try Self.outboxDepth(server) == 0)
        #expect(try Self.list(server).isEmpty)
        #expect(try Self.list(server, "status=pending").isEmpty)
        #expect(try Self.list(server, "status=in_flight").isEmpty)
        for id in Self.ids(stuck) { #expect(try Self.detail(server, id).status == 404) }
        #expect(try server.client.get("/api/v1/handlers/\(hung)").status == 404)

        // The attempt that was in flight ends afterwards: nothing comes back.
        sink.release("h")
        _ = try eventually(seconds: 60, { try Self.attemptsEnded(server, outcome: "ok") }, until: { $0 >= 4 })
        #expect(try Self.list(server).isEmpty)
        #expect(try Self.outboxDepth(server) == 0)
        #expect(sink.received(path: "/hold/h").count == 1, "the dropped deliveries are never sent")
    }

    /// Deleting a handler while its button is being pressed: a delivery made for it just
    /// before the delete must not outlive it (pending forever, counted in the outbox, listed
    /// under a handler that is 404). Many rounds, so the window is hit if it is there; a
    /// server without the race passes every time.
    @Test func deletingAHandlerWhileItsButtonIsPressedLeavesNothingBehind() throws {
        let server = try Self.server { $0.retryScale = 600 }
        try Self.button(server, #"{"id": "b", "maxTaps": 1}"#)
        let stop = StopFlag()
        let pressers = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: pressers) {
                while !stop.isSet {
                    _ = try? server.post("/api/v1/buttons/b/press")
                    stop.pressed()
                }
            }
        }
        defer {
            stop.set()
            pressers.wait()
        }
        var deleted: Set<String> = []
        for _ in 0..<100 {
            let created = try server.post("/api/v1/buttons/b/handlers", Self.hook("http://127.0.0.1:9/x"))
            guard let hid = created.json["id"]?.string else { continue }
            // Let presses run against the handler (bounded: on a starved machine, go on anyway).
            let target = stop.presses + 2
            let deadline = Date().addingTimeInterval(2)
            while stop.presses < target && Date() < deadline { usleep(1_000) }
            #expect(try server.client.request("DELETE", "/api/v1/handlers/\(hid)").status == 204)
            deleted.insert(hid)
        }
        stop.set()
        pressers.wait()
        #expect(deleted.count == 100)
        #expect(stop.presses > 200)
        let left = try eventually(seconds: 5, { try Self.list(server, "limit=1000") }, until: { $0.isEmpty })
        let owners = Set(left.compactMap { $0["handler"]?.string })
        #expect(left.count == 0, "\(left.count) deliveries of \(owners.count) deleted handlers are left in the log")
        #expect(owners.isSubset(of: deleted))
        #expect(try Self.outboxDepth(server) == 0)
    }

    @Test func deletingAButtonDropsItsHandlersLogs() throws {
        let (server, sink) = try Self.serverWithButton()
        try Self.button(server, #"{"id": "other", "maxTaps": 1}"#)
        let fine = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/ok")))
        let hung = try Self.handler(server, sink, "buttons/b", Self.hook(sink.url("/hold/b"), webhook: #", "timeoutMs": 30000"#))
        let kept = try Self.handler(server, sink, "buttons/other", Self.hook(sink.url("/ok/other")))
        for _ in 0..<2 { try Self.tap(server) }
        try Self.tap(server, "other")
        let finished = try eventually(seconds: 60, { try Self.list(server, "handler=\(fine)") }, until: { $0.count == 2 && $0.allSatisfy { $0["status"] == "ok" } })
        let stuck = try eventually(seconds: 60, { try Self.list(server, "handler=\(hung)") }, until: { $0.last?["status"] == "in_flight" })
        let other = try eventually(seconds: 60, { try Self.list(server, "handler=\(kept)") }, until: { $0.first?["status"] == "ok" })
        #expect(try Self.outboxDepth(server) == 2)

        #expect(try server.client.request("DELETE", "/api/v1/buttons/b").status == 204)
        #expect(try Self.outboxDepth(server) == 0)
        for hid in [fine, hung] {
            #expect(try server.client.get("/api/v1/handlers/\(hid)").status == 404)
            #expect(try Self.list(server, "handler=\(hid)").isEmpty)
        }
        for id in Self.ids(finished) + Self.ids(stuck) { #expect(try Self.detail(server, id).status == 404) }
        // Another button's log is untouched.
        #expect(try Self.list(server).map { $0["id"] } == other.map { $0["id"] })
        sink.stop()
    }

}
