import ThreadSupport

/// A bound on the OSC messages handed to the sequencer and not yet answered. HTTP input is
/// bounded by its connections; a UDP sender is not, so without this a flood queues seconds of
/// work ahead of every HTTP press (and memory with it). At the bound the reader waits: UDP
/// datagrams then wait in the socket's buffer, and the kernel drops what it cannot hold, as
/// UDP does; a TCP sender is slowed by TCP's flow control.
final class OSCInFlight: @unchecked Sendable {  // `count`, `closed` and `waits` under `condition`
    let limit: Int
    private let condition = Condition()
    private var count = 0
    private var closed = false
    private var waits = 0

    init(limit: Int) { self.limit = limit }

    /// Takes a place, waiting while `limit` are taken (until `close`).
    func enter() {
        condition.locked {
            if count >= limit && !closed { waits += 1 }
            while count >= limit && !closed { condition.wait(seconds: 0.1) }
            count += 1
        }
    }

    /// Gives a place back (its message was answered).
    func leave() {
        condition.locked {
            count -= 1
            condition.signal()
        }
    }

    /// Stops waiting: `enter` returns at once from now on.
    func close() {
        condition.locked {
            closed = true
            condition.broadcast()
        }
    }

    /// Messages waiting for an answer, and how often the reader had to wait for a place.
    var state: (inFlight: Int, waits: Int) { condition.locked { (count, waits) } }
}
