import Foundation
import Testing
import TestSupport

/// Each request is one line of the log, in the words and order an operator's tools read.
@Suite("Requests are logged")
struct RequestLogTests {
    @Test func aPressIsOneLogfmtLine() throws {
        let server = try CLIServer()
        try server.post("/api/v1/buttons", #"{"id": "door"}"#)
        #expect(try server.post("/api/v1/buttons/door/press").status == 200)
        #expect(try server.process.client.get("/api/v1/buttons/no%20such").status == 404)
        #expect(server.process.stop(SIGTERM) == 0)
        let lines = server.process.log.split(separator: "\n").filter { $0.contains("msg=request") }
        let press = try #require(lines.first { $0.contains("path=/api/v1/buttons/door/press") })
        let expected = #/ts=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z level=info msg=request method=POST path=/api/v1/buttons/door/press route=/api/v1/buttons/\{id\}/press status=200 duration_ms=\d+\.\d{3} remote=127\.0\.0\.1/#
        #expect(press.wholeMatch(of: expected) != nil, "\(press)")
        let missing = try #require(lines.first { $0.contains("no such") })
        #expect(missing.contains(#" method=GET path="/api/v1/buttons/no such" route=/api/v1/buttons/{id} status=404 duration_ms="#), "\(missing)")
    }

    /// Each delivery attempt is one line too, its numbers as numbers.
    @Test func aDeliveryIsOneLogfmtLine() throws {
        let receiver = try LocalReceiver(answer: "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        let server = try CLIServer()
        try server.post("/api/v1/buttons", #"{"id": "door", "maxTaps": 1}"#)
        try server.post("/api/v1/buttons/door/handlers", #"{"on": ["tap"], "webhook": {"url": "\#(receiver.url("/hook"))"}}"#)
        #expect(try server.post("/api/v1/buttons/door/press").status == 200)
        #expect(eventually { server.process.log.contains("msg=delivery ") })
        #expect(server.process.stop(SIGTERM) == 0)
        let line = try #require(server.process.log.split(separator: "\n").first { $0.contains("msg=delivery ") })
        let expected = #/ts=\S+ level=info msg=delivery delivery=dlv_[0-9a-z]+ handler=hdl_[0-9a-z]+ attempt=1 outcome=ok status=ok code=204 duration_ms=\d+/#
        #expect(line.wholeMatch(of: expected) != nil, "\(line)")
    }
}
