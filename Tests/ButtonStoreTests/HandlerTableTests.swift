import ButtonEngine
import Testing

@testable import ButtonStore

/// The `handlers` table's SQL names its columns once: the load and the upsert list them in
/// `HandlerColumn`'s order, by which a row is read and bound.
@Suite struct HandlerTableTests {
    static func words(_ sql: StaticString) -> String {
        "\(sql)".split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test func theStatementsListTheColumnsInHandlerColumnsOrder() {
        let names = ButtonStore.HandlerColumn.allCases.map(\.name)
        #expect(names.count == 18 && names[3] == "on_events" && names.last == "secret")
        let list = names.joined(separator: ", ")
        #expect(Self.words(ButtonStore.loadHandlersSQL).hasPrefix("SELECT \(list) FROM handlers"))
        let parameters = (1...names.count).map { "?\($0)" }.joined(separator: ", ")
        #expect(Self.words(ButtonStore.upsertHandlerSQL).hasPrefix("INSERT INTO handlers (\(list)) VALUES (\(parameters))"))
        let updates = zip(names, parameters.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            .dropFirst().map { "\($0) = \($1)" }.joined(separator: ", ")
        #expect(Self.words(ButtonStore.upsertHandlerSQL).hasSuffix("ON CONFLICT (id) DO UPDATE SET \(updates)"))
    }

    /// A row comes back as it went in, each column by its name.
    @Test func aRowRoundTrips() throws {
        let row = HandlerRow(
            id: "h", owner: .sheet("s"), position: 2, on: [.select, .sheetCancel], option: "go", enabled: false, ordered: true,
            kind: "osc", url: "osc.udp://127.0.0.1:9000", method: "slip", headers: "{}", body: "[]", name: "/a", args: "[1]",
            timeoutMs: 7, maxAttempts: 4, expireAfterMs: 9, secret: "whsec_x")
        try withStore { store, _ throws in
            try store.upsertHandler(row)
            #expect(try store.handlerRows() == [row])
            var changed = row
            changed.expireAfterMs = nil
            changed.on = []
            try store.upsertHandler(changed)
            #expect(try store.handlerRows() == [changed])
        }
    }
}
