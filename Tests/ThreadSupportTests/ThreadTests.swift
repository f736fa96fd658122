import Platform
import Testing
import ThreadSupport

/// `startThread` runs its body on a thread of its own, under the name `top -H` shows.
@Suite struct ThreadTests {
    final class Seen: @unchecked Sendable {  // guarded by `condition`
        let condition = Condition()
        var name: String?
        var thread: pthread_t?
        var nice: Bool?
    }

    static func run(name: String, _ body: @escaping @Sendable (Seen) -> Void) -> Seen {
        let seen = Seen()
        startThread(name: name) {
            let threadName = Self.currentThreadName()
            body(seen)
            seen.condition.locked {
                seen.name = threadName
                seen.thread = pthread_self()
                seen.condition.broadcast()
            }
        }
        seen.condition.locked {
            let deadline = Clock.system.monotonic() + 30
            while seen.name == nil && Clock.system.monotonic() < deadline { seen.condition.wait(seconds: 1) }
        }
        return seen
    }

    /// The calling thread's name as the kernel has it (what `top -H` shows).
    static func currentThreadName() -> String {
        let fd = open("/proc/thread-self/comm", O_RDONLY)
        guard fd >= 0 else { return "(no /proc/thread-self/comm)" }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(fd, &buffer, buffer.count)
        return String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self).trimmingSuffix("\n")
    }

    @Test func theBodyRunsOnAnotherThreadUnderItsName() {
        let seen = Self.run(name: "test-named") { _ in }
        seen.condition.locked {
            #expect(seen.name == "test-named")
            #expect(seen.thread.map { pthread_equal($0, pthread_self()) == 0 } == true)
        }
    }

    @Test func aLongNameIsCutToFifteenBytes() {
        let seen = Self.run(name: "buttond.sequencer-and-more") { _ in }
        #expect(seen.condition.locked { seen.name } == "buttond.sequenc")
    }

    /// Lowering a thread's priority needs no privilege, so it always works.
    @Test func aThreadMayLowerItsOwnPriority() {
        let seen = Self.run(name: "test-nice") { seen in
            let lowered = setThreadNice(5)
            seen.condition.locked { seen.nice = lowered }
        }
        #expect(seen.condition.locked { seen.nice } == true)
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
