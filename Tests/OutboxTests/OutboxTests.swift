import ButtonEngine
import Outbox
import Testing

@Suite struct OutboxTests {
    @Test func publicIDsRoundTripAndRejectOthers() {
        for id: Int64 in [1, 35, 36, 1_796_040_000_000_123, .max] {
            #expect(DeliveryRow.id(publicID: DeliveryRow.publicID(id)) == id)
        }
        for text in ["", "dlv_", "dlv_-1", "dlv_ABC", "evt_12", "dlv_0", "dlv_zzzzzzzzzzzzzzzz"] {
            #expect(DeliveryRow.id(publicID: text) == nil, "\(text)")
        }
    }

    @Test func idsAreUniqueAndGrowEvenWhenTheClockStandsStillOrGoesBack() {
        let ids = DeliveryIDs(after: 1_000)
        let made = [ids.next(nowMicros: 500), ids.next(nowMicros: 5_000), ids.next(nowMicros: 5_000), ids.next(nowMicros: 4_000)]
        #expect(made == [1_001, 5_000, 5_001, 5_002])
    }

    @Test func everyStatusHasTheNameTheAPIUsesAndOnlyFinishedOnesAreFinished() {
        for status in DeliveryStatus.allCases {
            #expect(DeliveryStatus(name: status.name) == status)
        }
        #expect(DeliveryStatus(name: "inFlight") == nil)
        #expect(DeliveryStatus.allCases.filter(\.isFinished) == [.ok, .failed, .expired, .blocked])
    }

    @Test func anAttemptSendsTheShapedBodyWhenThereIsOneElseTheEvent() {
        let event = DeliveryEvent(seq: 1, id: "evt_1", type: .tap, source: .sheet("s"), t: 0, json: Array("{}".utf8))
        var row = DeliveryRow(id: 1, handler: "h", nextAttemptAt: 0, createdAt: 0, event: event)
        #expect(row.payload == Array("{}".utf8))
        row.body = Array("shaped".utf8)
        #expect(row.payload == Array("shaped".utf8))
    }
}
