import ButtonEngine
import ButtonStore
import Buttons
import Delivery
import Foundation
import Handlers
import JSON
import Outbox
import Testing

/// The handler registry on a real store and a real (not started) dispatcher: which deliveries
/// an event makes, what a 410 does, what survives a restart.
@Suite struct HandlerRegistryTests {
    final class Fixture {
        let directory: String
        let store: ButtonStore
        let dispatcher: Dispatcher
        let registry: HandlerRegistry
        /// The registry's delivery ids, to share with a target of the server's own.
        let ids: DeliveryIDs

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("handlers-\(UUID().uuidString)").path
            store = try ButtonStore(directory: directory, clock: .system)
            dispatcher = Dispatcher(store: store, clock: .system, userAgent: "test")
            ids = DeliveryIDs(after: try store.lastDeliveryID())
            registry = HandlerRegistry(
                store: store, scriptsDir: nil, dispatcher: dispatcher, ids: ids,
                labels: { event in EventLabels(label: "Label of \(event.source.id)") })
        }

        deinit {
            store.close()
            try? FileManager.default.removeItem(atPath: directory)
        }

        /// A webhook handler made from the API's JSON, as a route makes it.
        @discardableResult
        func add(_ json: String, to owner: Source) throws -> Handler {
            let context = Handler.Context(
                scriptsDir: nil, sheetOptions: owner.sheet == nil ? nil : ["go", "stop"])
            let handler = try Handler.create(from: try JSONParser.parse(Array(json.utf8)), owner: owner, context: context)
            _ = try registry.add(handler)
            return handler
        }
    }

    static func event(_ seq: Int64, _ type: EventType, _ source: Source, option: String? = nil) -> ControlEvent {
        var data = EventData()
        data.option = option
        return ControlEvent(seq: seq, idPrefix: "evt_", gesture: GestureEvent(type, t: 1_000 + seq, data: data), source: source)
    }

    @Test func anEventMakesOneDeliveryPerMatchingHandlerOfItsSourceOnly() throws {
        let f = try Fixture()
        let doorTap = try f.add(#"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/a"}}"#, to: .button("door"))
        let doorLong = try f.add(#"{"on": ["long-press"], "webhook": {"url": "http://127.0.0.1:9/b"}}"#, to: .button("door"))
        try f.add(#"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/c"}}"#, to: .button("lamp"))
        // A sheet named like the button: the same id, another source.
        try f.add(#"{"on": ["select"], "webhook": {"url": "http://127.0.0.1:9/d"}}"#, to: .sheet("door"))

        let rows = f.registry.deliveries(for: [Self.event(1, .tap, .button("door")), Self.event(2, .longPress, .button("door"))], now: 5)
        #expect(rows.map(\.handler) == [doorTap.id, doorLong.id])
        #expect(rows.map(\.event.seq) == [1, 2])
        #expect(rows.allSatisfy { $0.event.source == .button("door") && $0.status == .pending && $0.nextAttemptAt == 5 })
        // Ids grow with every row made.
        #expect(rows[0].id < rows[1].id)
        #expect(f.registry.deliveries(for: [Self.event(3, .doubleTap, .button("door"))], now: 5).isEmpty)
    }

    @Test func aSheetHandlerWithAnOptionFiresForThatOptionOnly() throws {
        let f = try Fixture()
        let go = try f.add(#"{"on": ["select"], "option": "go", "webhook": {"url": "http://127.0.0.1:9/go"}}"#, to: .sheet("s"))
        let any = try f.add(#"{"on": ["select"], "webhook": {"url": "http://127.0.0.1:9/any"}}"#, to: .sheet("s"))
        let rows = f.registry.deliveries(
            for: [Self.event(1, .select, .sheet("s"), option: "go"), Self.event(2, .select, .sheet("s"), option: "stop")], now: 0)
        #expect(rows.map(\.handler) == [go.id, any.id, any.id])
        #expect(rows.map(\.event.option) == ["go", "go", "stop"])
    }

    @Test func aTemplateIsRenderedOnceWithTheLabelsOfTheEvent() throws {
        let f = try Fixture()
        try f.add(
            #"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/t", "body": {"text": "{label} {type}", "seq": "{seq}"}}}"#,
            to: .button("door"))
        let row = try #require(f.registry.deliveries(for: [Self.event(7, .tap, .button("door"))], now: 0).first)
        #expect(row.event.label == "Label of door")
        let body = try JSONParser.parse(try #require(row.body))
        #expect(body == ["text": "Label of door tap", "seq": 7])
    }

    @Test func aDisabledHandlerMakesNoDeliveriesAndA410DisablesWithItsReasonAcrossARestart() throws {
        let f = try Fixture()
        let hook = try f.add(#"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/gone"}}"#, to: .button("door"))
        f.registry.disable(hook.id)
        #expect(try f.registry.get(hook.id).enabled == false)
        #expect(f.registry.disabledReasons(owner: .button("door"))[hook.id] == "the receiver answered 410 Gone")
        #expect(f.registry.deliveries(for: [Self.event(1, .tap, .button("door"))], now: 0).isEmpty)

        // Stored: a registry loaded from the same store has it disabled too.
        let reloaded = HandlerRegistry(
            store: f.store, scriptsDir: nil, dispatcher: f.dispatcher, ids: DeliveryIDs(after: 0), labels: { _ in EventLabels() })
        try reloaded.load()
        #expect(try reloaded.get(hook.id).enabled == false)
    }

    @Test func theServersOwnTargetGetsEveryEventBesideTheHandlersWithUniqueIDs() throws {
        let f = try Fixture()
        let hook = try f.add(#"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/a"}}"#, to: .button("door"))
        let rules = CombinedDeliveryRules([f.registry, EveryEvent(ids: f.ids)])
        let rows = rules.deliveries(for: [Self.event(1, .tap, .button("door")), Self.event(2, .toggle, .button("x"))], now: 0)
        #expect(rows.map(\.handler) == [hook.id, "all", "all"])
        #expect(rows.filter { $0.handler == "all" }.map(\.event.seq) == [1, 2])
        #expect(Set(rows.map(\.id)).count == 3)
    }

    /// A target of the server's own, as MQTT publishing is: every event goes to it.
    struct EveryEvent: DeliveryRules {
        let ids: DeliveryIDs

        func deliveries(for events: ArraySlice<ControlEvent>, now: Int64) -> [DeliveryRow] {
            events.map { DeliveryRow(of: $0, to: "all", ids: ids, now: now) }
        }
    }

    @Test func aButtonHasAtMost32Handlers() throws {
        let f = try Fixture()
        for i in 0..<HandlerRegistry.maxPerOwner {
            try f.add(#"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/\#(i)"}}"#, to: .button("door"))
        }
        #expect(throws: ButtonsError.self) {
            try f.add(#"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/x"}}"#, to: .button("door"))
        }
        // Another button is not limited by this one's.
        try f.add(#"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/y"}}"#, to: .button("lamp"))
    }
}
