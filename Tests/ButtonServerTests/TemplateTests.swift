import CurlHTTP
import Foundation
import MicroHTTP
import Testing

/// Webhook templates as sent (SPEC §5): the URL's path and query filled in, numbers as
/// numbers, the chosen option's and the new face's labels.
@Suite("Webhook templates, live")
struct TemplateTests {
    typealias H = DeliveryLogRouteTests

    @Test func urlNumbersAndLabelsAreFilledIn() throws {
        let server = try H.server()
        defer { server.stop() }
        let sink = try Sink()
        try server.post("/api/v1/sheets", #"{"id": "scenes", "title": "Scenes", "options": [{"id": "day", "label": "Day"}, {"id": "movie", "label": "Movie night"}]}"#)
        try H.handler(
            server, sink, "sheets/scenes",
            H.hook(
                sink.url("/scene/{option}?label={option_label}"), on: #"["select"]"#,
                webhook: #", "body": {"index": "{index}", "seq": "{seq}", "label": "{option_label}", "text": "n{index}"}"#))
        try H.button(server, #"{"id": "lamp", "kind": "toggle", "maxTaps": 1, "faces": [{"label": "Off"}, {"label": "Lit up"}]}"#)
        try H.handler(server, sink, "buttons/lamp", H.hook(sink.url("/lamp/{face_label}"), on: #"["toggle"]"#, webhook: #", "body": {"face": "{face}", "is": "{face_label}"}"#))

        let chosen = try server.post("/api/v1/sheets/scenes/choose", #"{"option": "movie"}"#)
        let seq = try #require(chosen.json["events"]?.array.first { $0["type"] == "select" }?["seq"]?.int)
        try server.post("/api/v1/buttons/lamp/press")
        let received = sink.wait { $0.count == 2 }
        let scene = try #require(received.first { $0.target.hasPrefix("/scene/") })
        #expect(scene.target == "/scene/movie?label=Movie%20night")
        #expect(try JSONParser.parse(scene.body) == ["index": 1, "seq": .int(seq), "label": "Movie night", "text": "n1"])
        let lamp = try #require(received.first { $0.target.hasPrefix("/lamp/") })
        #expect(lamp.target == "/lamp/Lit%20up")
        #expect(try JSONParser.parse(lamp.body) == ["face": 1, "is": "Lit up"])
    }
}
