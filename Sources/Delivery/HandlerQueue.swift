import Outbox

/// One handler's unfinished deliveries, oldest first, and the one in flight.
///
/// Rows are kept by id, their order in an array read from `start`: the delivery that finishes
/// is almost always the oldest, so taking it off is a step of `start`, not a shift of every
/// row behind it (a busy handler can have thousands waiting).
struct HandlerQueue {
    /// What choosing the next delivery needs, kept apart from the rows so that looking does
    /// not copy them.
    struct Slot {
        var id: Int64
        var nextAttemptAt: Int64
    }

    private var order: [Slot] = []
    private var start = 0
    private var rows: [Int64: DeliveryRow] = [:]
    var inFlight: Int64?

    var isEmpty: Bool { rows.isEmpty }
    /// Whether its storage has room for more than a burst's rows (kept when empty otherwise).
    var isLarge: Bool { rows.capacity > Self.keptCapacity }
    static let keptCapacity = 256
    var count: Int { rows.count }

    /// Oldest first.
    var pending: some Sequence<DeliveryRow> { order[start...].lazy.compactMap { rows[$0.id] } }

    var first: DeliveryRow? { order[start...].first.flatMap { rows[$0.id] } }

    /// Oldest first, without the rows.
    var slots: ArraySlice<Slot> { order[start...] }

    subscript(id: Int64) -> DeliveryRow? {
        get { rows[id] }
        set {
            guard let newValue, rows[id] != nil else { return }
            rows[id] = newValue
            if let index = order[start...].firstIndex(where: { $0.id == id }) { order[index].nextAttemptAt = newValue.nextAttemptAt }
        }
    }

    /// Adds a row in id order (new rows almost always come last). A test delivery (`POST
    /// /handlers/{hid}/test`, the synthetic event seq 0) comes first: it goes now, not after
    /// deliveries waiting for their retry.
    mutating func insert(_ row: DeliveryRow) {
        if rows[row.id] != nil {
            self[row.id] = row
            return
        }
        rows[row.id] = row
        let slot = Slot(id: row.id, nextAttemptAt: row.nextAttemptAt)
        if row.event.seq == 0 {
            order.insert(slot, at: start)
        } else if let last = order.last, last.id > row.id {
            order.insert(slot, at: order[start...].firstIndex { $0.id > row.id } ?? order.endIndex)
        } else {
            order.append(slot)
        }
    }

    mutating func remove(_ id: Int64) {
        guard rows.removeValue(forKey: id) != nil else { return }
        if order[start].id == id {
            start += 1
        } else if let index = order[start...].firstIndex(where: { $0.id == id }) {
            order.remove(at: index)
        }
        if rows.isEmpty {
            order.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 1024 && start * 2 > order.count {
            order.removeFirst(start)
            start = 0
        }
    }
}
