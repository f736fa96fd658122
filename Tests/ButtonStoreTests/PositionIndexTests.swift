import Testing

@testable import ButtonStore

/// A new button's or sheet's position is read from an index, not from a scan of the table.
@Suite struct PositionIndexTests {
    @Test func newPositionsComeFromAnIndex() throws {
        try withStore { store, _ throws in
            let plans = try store.withConnection { connection throws(StoreError) in
                try connection.statement("EXPLAIN QUERY PLAN SELECT COALESCE(MAX(position), -1) + 1 FROM buttons").rows { $0.text(3) }
                    + connection.statement("EXPLAIN QUERY PLAN SELECT COALESCE(MAX(position), -1) + 1 FROM sheets").rows { $0.text(3) }
            }
            #expect(plans.allSatisfy { $0.contains("USING") && $0.contains("INDEX") }, "\(plans)")
        }
    }
}
