import Platform
import ThreadSupport

/// The process groups of one dispatcher's scripts, so that nothing a script starts outlives
/// it, nor buttond: a group whose script has ended gets SIGTERM, and SIGKILL `graceMs` later
/// if anything is still in it (a child that ignores SIGTERM); at the dispatcher's stop, every
/// group still here, running or not, is stopped the same way.
///
/// The worker that ran the script goes on at once: a reaper thread, started while something
/// lingers, sends the SIGKILLs. A group is known by its leader's pid, which is reaped before
/// the group is handed over; the kernel does not reuse that pid while anything is left in
/// the group, and a new process would have to make itself a group leader with that very pid
/// within the grace to be hit by mistake.
public final class ScriptGroups: @unchecked Sendable {  // every `var` is guarded by `condition`
    public let graceMs: Int64
    /// The monotonic clock the graces (and the scripts' timeouts, `ScriptRunner`) are measured on.
    public let clock: Clock
    private let condition = Condition()
    /// Groups whose script is running.
    private var running: Set<pid_t> = []
    /// Groups whose script has ended, and when they get SIGKILL (monotonic milliseconds).
    private var lingering: [pid_t: Int64] = [:]
    private var reaping = false
    private var closing = false

    public init(graceMs: Int64 = 2000, clock: Clock) {
        self.graceMs = graceMs
        self.clock = clock
    }

    private func now() -> Int64 { clock.monotonicMilliseconds() }

    /// A script was started, leading the group `pid`. After `stopAll` it is killed at once.
    func started(_ pid: pid_t) {
        condition.locked {
            running.insert(pid)
            if closing { kill(-pid, SIGKILL) }
        }
    }

    /// The script that led `pid` has been reaped. What is left in its group gets SIGTERM now
    /// (unless its timeout sent it at `termSentAt`), and SIGKILL when the grace is over.
    func ended(_ pid: pid_t, termSentAt: Int64?) {
        condition.locked {
            running.remove(pid)
            defer { condition.broadcast() }
            let left = termSentAt == nil ? kill(-pid, SIGTERM) == 0 : kill(-pid, 0) == 0
            guard left else { return }  // the usual case: the script took its children with it
            lingering[pid] = closing ? now() : (termSentAt ?? now()) + graceMs
            if !reaping {
                reaping = true
                startThread(name: "buttond.reap") { [self] in reap() }
            }
        }
    }

    /// Until nothing lingers: SIGKILL to each group whose grace is over; one that is empty
    /// already (it went on SIGTERM) is let go sooner.
    private func reap() {
        condition.lock()
        while !lingering.isEmpty {
            let now = now()
            for (group, killAt) in lingering where killAt <= now || kill(-group, 0) != 0 {
                if killAt <= now { kill(-group, SIGKILL) }
                lingering[group] = nil
                condition.broadcast()
            }
            let next = lingering.values.min() ?? now
            _ = condition.wait(seconds: Double(min(max(next - now, 1), 50)) / 1000)
        }
        reaping = false
        condition.unlock()
    }

    /// buttond stops: every group here gets SIGTERM, and those not gone when the grace is
    /// over get SIGKILL. A script started after this is killed as it starts.
    public func stopAll() {
        condition.lock()
        closing = true
        for group in running.union(lingering.keys) { kill(-group, SIGTERM) }
        // A wait that runs out ends it, so a clock that stands still (a test's) still ends
        // the grace.
        let deadline = now() + graceMs
        while !(running.isEmpty && lingering.isEmpty) && now() < deadline {
            guard condition.wait(seconds: Double(deadline - now()) / 1000) else { break }
        }
        for group in running.union(lingering.keys) { kill(-group, SIGKILL) }
        lingering = [:]
        condition.unlock()
    }
}
