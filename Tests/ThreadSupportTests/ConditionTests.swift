import Platform
import Testing
import ThreadSupport

/// The condition variable and threads every blocking part of the server is built on: a wait
/// ends when signalled (not when a timeout happens to pass), a timed wait really waits, and
/// the lock excludes.
@Suite struct ConditionTests {
    /// What a test thread and the test share; every field is read and written with `condition` held.
    final class Shared: @unchecked Sendable {  // guarded by `condition`
        let condition = Condition()
        var started = false
        var value = 0
        var woken = false
    }

    static func seconds() -> Double { Clock.system.monotonic() }

    @Test func aSignalWakesTheWaiterWithTrue() {
        let shared = Shared()
        startThread(name: "test-signal") {
            shared.condition.locked {
                shared.started = true
                shared.condition.broadcast()
                // Waits for the value the test sets; a timed wait that returns true was signalled.
                while shared.value == 0 { shared.woken = shared.condition.wait(seconds: 30) || shared.woken }
                shared.value += 1
                shared.condition.broadcast()
            }
        }
        shared.condition.locked {
            while !shared.started { shared.condition.wait() }
            shared.value = 1
            shared.condition.signal()
            let deadline = Self.seconds() + 30
            while shared.value == 1 && Self.seconds() < deadline { shared.condition.wait(seconds: 1) }
            #expect(shared.value == 2, "the waiter never saw the signal")
            #expect(shared.woken, "the waiter's wait(seconds:) did not say it was signalled")
        }
    }

    @Test(arguments: [0.05, 0.2])
    func aTimedWaitWithNoSignalWaitsItsTimeAndSaysFalse(seconds: Double) {
        let condition = Condition()
        let started = Self.seconds()
        let signalled = condition.locked { condition.wait(seconds: seconds) }
        let waited = Self.seconds() - started
        #expect(!signalled)
        #expect(waited >= seconds * 0.95, "waited \(waited) s of \(seconds)")
        #expect(waited < seconds + 5)
    }

    /// A wait for a state keeps its one deadline however often it is woken in vain, and ends
    /// with true as soon as the state holds.
    @Test func aWaitForAStateKeepsItsDeadlineAcrossWakes() {
        final class Box: @unchecked Sendable {  // `done` and `stopped` are guarded by `condition`
            let condition = Condition()
            var done = false
            var stopped = false
        }
        let box = Box()
        startThread(name: "waker") {
            while !box.condition.locked({ () -> Bool in
                box.condition.broadcast()
                return box.stopped
            }) {
                usleep(5_000)
            }
        }
        let started = Self.seconds()
        let timedOut = box.condition.locked { box.condition.wait(seconds: 0.2) { box.done } }
        let waited = Self.seconds() - started
        #expect(!timedOut)
        #expect(waited >= 0.19 && waited < 5, "waited \(waited) s of 0.2 while woken every 5 ms")
        startThread(name: "finisher") {
            usleep(50_000)
            box.condition.locked {
                box.done = true
                box.condition.broadcast()
            }
        }
        let finished = box.condition.locked { box.condition.wait(seconds: 30) { box.done } }
        box.condition.locked { box.stopped = true }
        #expect(finished)
        #expect(Self.seconds() - started < 10)
    }

    @Test func aNegativeOrZeroTimeoutReturnsAtOnce() {
        let condition = Condition()
        let started = Self.seconds()
        #expect(condition.locked { condition.wait(seconds: -1) } == false)
        #expect(condition.locked { condition.wait(seconds: 0) } == false)
        #expect(Self.seconds() - started < 1)
    }

    @Test func broadcastWakesEveryWaiter() {
        let shared = Shared()
        let waiters = 6
        for i in 0..<waiters {
            startThread(name: "test-waiter-\(i)") {
                shared.condition.locked {
                    shared.value += 1  // one more waiting
                    shared.condition.broadcast()
                    while !shared.started { shared.condition.wait() }
                    shared.value -= 1
                    shared.condition.broadcast()
                }
            }
        }
        shared.condition.locked {
            let deadline = Self.seconds() + 30
            while shared.value < waiters && Self.seconds() < deadline { shared.condition.wait(seconds: 1) }
            #expect(shared.value == waiters, "only \(shared.value) waiters started")
            shared.started = true
            shared.condition.broadcast()
            while shared.value > 0 && Self.seconds() < deadline { shared.condition.wait(seconds: 1) }
            #expect(shared.value == 0, "\(shared.value) waiters were not woken")
        }
    }

    /// Increments that are not atomic, on many threads at once: only the lock keeps the count.
    @Test func lockedExcludesAndLockedValueToo() {
        let shared = Shared()
        let counter = Locked(0)
        let threads = 8, rounds = 20_000
        let done = Locked(0)
        for i in 0..<threads {
            startThread(name: "test-count-\(i)") {
                for _ in 0..<rounds {
                    shared.condition.locked {
                        let seen = shared.value
                        shared.value = seen + 1
                    }
                    counter.withLock { $0 += 1 }
                }
                done.withLock { $0 += 1 }
                shared.condition.locked { shared.condition.broadcast() }
            }
        }
        shared.condition.locked {
            let deadline = Self.seconds() + 60
            while done.withLock({ $0 }) < threads && Self.seconds() < deadline { shared.condition.wait(seconds: 1) }
            #expect(shared.value == threads * rounds)
        }
        #expect(counter.withLock { $0 } == threads * rounds)
    }

    @Test func lockedRethrowsAndUnlocks() {
        struct Refused: Error {}
        let condition = Condition()
        #expect(throws: Refused.self) { try condition.locked { () throws(Refused) in throw Refused() } }
        // The lock was given back: taking it again does not deadlock.
        #expect(condition.locked { 7 } == 7)
    }
}
