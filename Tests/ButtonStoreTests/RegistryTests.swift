import ButtonEngine
import ButtonStore
import Testing

/// Buttons, sheets and handlers: round-trips, order, deletes that take handlers along, import.
@Suite struct RegistryTests {
    @Test func buttonsRoundTripInInsertionOrder() throws {
        try withStore { store, _ throws in
            try store.upsertButton(id: "b", config: #"{"n":1}"#)
            try store.upsertButton(id: "a", config: #"{"n":2}"#)
            try store.upsertButton(id: "", config: "")
            #expect(
                try store.loadButtons() == [
                    StoredButton(id: "b", config: #"{"n":1}"#, position: 0),
                    StoredButton(id: "a", config: #"{"n":2}"#, position: 1),
                    StoredButton(id: "", config: "", position: 2),
                ])
            #expect(try store.loadButtons().count == 3)
        }
    }

    @Test func upsertOfAnExistingButtonChangesOnlyItsConfig() throws {
        try withStore { store, _ throws in
            try store.upsertButton(id: "door", config: "{}")
            try store.upsertButton(id: "lamp", config: "{}")
            try store.commit(
                events: [], states: [ButtonStateChange(id: "door", face: 1, clock: 5, held: true)], deliveries: [])
            try store.upsertButton(id: "door", config: #"{"label":"Front door ✓"}"#)
            #expect(
                try store.loadButtons().first
                    == StoredButton(
                        id: "door", config: #"{"label":"Front door ✓"}"#, face: 1, clock: 5, held: true, position: 0))
        }
    }

    /// An armed window's end is kept with the state (schema 17), and cleared when it closes.
    @Test func anArmedWindowsEndRoundTrips() throws {
        try withStore { store, _ throws in
            try store.upsertButton(id: "blackout", config: "{}")
            try store.commit(
                events: [], states: [ButtonStateChange(id: "blackout", face: 0, clock: 50, held: false, armedUntil: 3050)],
                deliveries: [])
            #expect(try store.loadButtons().first?.armedUntil == 3050)
            try store.commit(
                events: [], states: [ButtonStateChange(id: "blackout", face: 0, clock: 3050, held: false)], deliveries: [])
            #expect(try store.loadButtons().first?.armedUntil == nil)
            #expect(try store.loadButtons().first?.clock == 3050)
        }
    }

    @Test func deletingAButtonTakesItsHandlersAndTheirUndeliveredRows() throws {
        try withStore { store, _ throws in
            try store.upsertButton(id: "door", config: "{}")
            try store.upsertButton(id: "lamp", config: "{}")
            try store.upsertHandler(storedHandler("h1", owner: "button:door"))
            try store.upsertHandler(storedHandler("h2", owner: "button:lamp"))
            var done = deliveryRow(10, handler: "h1")
            done.status = .ok
            try store.commit(
                events: [event(1)], states: [],
                deliveries: [deliveryRow(1, handler: "h1"), deliveryRow(2, handler: "h2"), done])
            #expect(try store.deleteButton(id: "door"))
            #expect(try !store.deleteButton(id: "door"))
            #expect(try store.loadButtons().map(\.id) == ["lamp"])
            #expect(try store.loadHandlers().map(\.handler.id) == ["h2"])
            #expect(try store.delivery(id: 1) == nil)
            #expect(try store.delivery(id: 10) == nil)  // the finished log goes with its handler
            #expect(try store.pendingDeliveries().count == 1)
            #expect(try store.events(after: 0, limit: 1_000_000, button: nil).count == 1)
        }
    }

    @Test func sheetsRoundTripAndDeleteWithTheirHandlers() throws {
        try withStore { store, _ throws in
            try store.upsertSheet(id: "s1", config: #"{"title":"One"}"#)
            try store.upsertSheet(id: "s2", config: #"{"title":"Two"}"#)
            try store.upsertSheet(id: "s1", config: #"{"title":"Uno"}"#)
            #expect(
                try store.loadSheets() == [
                    StoredSheet(id: "s1", config: #"{"title":"Uno"}"#, position: 0),
                    StoredSheet(id: "s2", config: #"{"title":"Two"}"#, position: 1),
                ])
            try store.upsertHandler(storedHandler("h1", owner: "sheet:s1"))
            #expect(try store.deleteSheet(id: "s1"))
            #expect(try store.loadSheets().map(\.id) == ["s2"])
            #expect(try store.loadHandlers().isEmpty)
        }
    }

    @Test func handlersRoundTripUpdateAndDelete() throws {
        try withStore { store, _ throws in
            let owner = Source.button("door")
            #expect(owner.stored == "button:door")
            #expect(try store.nextHandlerPosition(owner: owner) == 0)
            let first = storedHandler("h1", owner: "button:door", secret: "whsec_abc")
            try store.upsertHandler(first)
            #expect(try store.nextHandlerPosition(owner: owner) == 1)
            // Every typed column comes back: a script, disabled, unordered, in second place.
            let second = storedHandler("h0", owner: "button:door", enabled: false, position: 1, script: true)
            try store.upsertHandler(second)
            try store.upsertHandler(storedHandler("hs", owner: "sheet:s1"))
            #expect(try store.loadHandlers() == [first, second, storedHandler("hs", owner: "sheet:s1")])

            var changed = first
            changed.handler.enabled = false
            changed.handler.on = [.doubleTap]
            if case .webhook(var hook) = changed.handler.action {
                hook.method = "PUT"
                hook.body = nil
                hook.headers = [:]
                changed.handler.action = .webhook(hook)
            }
            changed.secret = "whsec_new"
            try store.upsertHandler(changed)
            #expect(try store.loadHandlers().first == changed)

            try store.commit(events: [event(1)], states: [], deliveries: [deliveryRow(1, handler: "h1")])
            #expect(try store.deleteHandler(id: "h1"))
            #expect(try !store.deleteHandler(id: "h1"))
            #expect(try store.delivery(id: 1) == nil)
            #expect(try store.loadHandlers().filter { $0.handler.owner == owner } == [second])
        }
    }

    @Test func replaceRegistryKeepsListedStateAndDropsTheRest() throws {
        try withStore { store, _ throws in
            try store.upsertButton(id: "a", config: "{}")
            try store.upsertButton(id: "b", config: "{}")
            try store.upsertSheet(id: "s1", config: "{}")
            try store.upsertHandler(storedHandler("ha", owner: "button:a"))
            try store.upsertHandler(storedHandler("hb", owner: "button:b"))
            try store.upsertHandler(storedHandler("hs", owner: "sheet:s1"))
            try store.commit(
                events: [], states: [ButtonStateChange(id: "b", face: 1, clock: 9, held: false)],
                deliveries: [deliveryRow(1, handler: "ha")])

            try store.replaceRegistry(
                buttons: [(id: "c", config: #"{"new":true}"#), (id: "b", config: #"{"kept":true}"#)],
                sheets: [(id: "s2", config: "{}")], handlers: [storedHandler("hb", owner: "button:b")])

            #expect(
                try store.loadButtons() == [
                    StoredButton(id: "c", config: #"{"new":true}"#, position: 0),
                    StoredButton(id: "b", config: #"{"kept":true}"#, face: 1, clock: 9, held: false, position: 1),
                ])
            #expect(try store.loadSheets() == [StoredSheet(id: "s2", config: "{}", position: 0)])
            #expect(try store.loadHandlers().map(\.handler.id) == ["hb"])
            #expect(try store.delivery(id: 1) == nil)
        }
    }

    @Test func replaceRegistryWithHandlersReplacesThemToo() throws {
        try withStore { store, _ throws in
            try store.upsertButton(id: "a", config: "{}")
            try store.upsertHandler(storedHandler("old", owner: "button:a"))
            let imported = storedHandler("new", owner: "button:a", secret: "whsec_1")
            try store.replaceRegistry(buttons: [(id: "a", config: "{}")], sheets: [], handlers: [imported])
            #expect(try store.loadHandlers() == [imported])
        }
    }

    @Test func replaceRegistryOnAClosedStoreThrows() throws {
        try withStore { store, _ throws in
            store.close()
            #expect(throws: StoreError.self) {
                try store.replaceRegistry(buttons: [], sheets: [], handlers: [HandlerRow]())
            }
        }
    }
}
