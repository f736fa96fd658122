import ButtonStore

/// One handler's unfinished deliveries, oldest first, and the one in flight.
///
/// Rows are kept by id, their order in an array read from `start`: the delivery that finishes
/// is almost always the oldest, so taking it off is a step of `start`, not a shift of every
/// row behind it (a busy handler can have thousands waiting).
struct HandlerQueue {
    private var order: [Int64] = []
    private var start = 0
    private var rows: [Int64: DeliveryRow] = [:]
    var inFlight: Int64?

    var isEmpty: Bool { rows.isEmpty }
    var count: Int { rows.count }

    /// Oldest first.
    var pending: some Sequence<DeliveryRow> { order[start...].lazy.compactMap { rows[$0] } }

    var first: DeliveryRow? { order[start...].first.flatMap { rows[$0] } }

    subscript(id: Int64) -> DeliveryRow? {
        get { rows[id] }
        set {
            if let newValue { rows[id] = newValue }
        }
    }

    /// Adds a row in id order (new rows almost always come last).
    mutating func insert(_ row: DeliveryRow) {
        if rows.updateValue(row, forKey: row.id) != nil { return }
        if let last = order.last, last > row.id {
            let index = order[start...].firstIndex { $0 > row.id } ?? order.endIndex
            order.insert(row.id, at: index)
        } else {
            order.append(row.id)
        }
    }

    mutating func remove(_ id: Int64) {
        guard rows.removeValue(forKey: id) != nil else { return }
        if order[start] == id {
            start += 1
        } else if let index = order[start...].firstIndex(of: id) {
            order.remove(at: index)
        }
        if start > 1024 && start * 2 > order.count {
            order.removeFirst(start)
            start = 0
        }
    }
}
