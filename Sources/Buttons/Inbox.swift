/// What request threads share with the sequencer's thread, as a value: the work submitted and
/// not yet taken, whether that thread sleeps (a submit then wakes it), whether it takes work
/// and whether it is to stop. Guarded by the sequencer's one lock; the decisions are here,
/// the waking is the sequencer's (`InboxTests` drive it by hand).
package struct Inbox {
    package enum Work {
        case command(SequencerState.Submission)
        /// Runs alone on the sequencer's thread, after what was submitted before it is committed.
        case exclusive(@Sendable () -> Void)
    }

    /// What a submit did.
    package enum Admission: Equatable {
        /// Queued; the thread is awake or already woken.
        case queued
        /// Queued; the thread sleeps and is to be woken (once the lock is released).
        case queuedWake
        /// Not taken: the sequencer has not started or is stopping.
        case refused
    }

    private var work: [Work] = []
    /// Between `start` and `stop`.
    package private(set) var accepting = false
    /// `stop` was asked: the thread takes what is queued, then ends.
    package private(set) var stopping = false
    /// The thread waits for work (or its next timer).
    private var sleeping = false

    package init() {}

    package var isEmpty: Bool { work.isEmpty }

    package mutating func start() { accepting = true }

    /// Asks the thread to stop; true if it sleeps and is to be woken.
    package mutating func stop() -> Bool {
        accepting = false
        stopping = true
        return wake()
    }

    package mutating func submit(_ item: Work) -> Admission {
        guard accepting else { return .refused }
        work.append(item)
        return wake() ? .queuedWake : .queued
    }

    /// Everything queued, in order; the queue is left empty (with room for as much again).
    package mutating func take() -> [Work] {
        var taken: [Work] = []
        taken.reserveCapacity(work.count)
        swap(&taken, &work)
        return taken
    }

    /// Whether the thread may sleep now (nothing queued, no stop asked); if so, it is marked
    /// sleeping, and the next submit wakes it.
    package mutating func maySleep() -> Bool {
        guard work.isEmpty && !stopping else { return false }
        sleeping = true
        return true
    }

    /// The thread woke (a timer, a wake-up or a spurious one).
    package mutating func woke() { sleeping = false }

    /// Whether the thread, just woken with work queued, gives way once before it takes it:
    /// raised above the request threads (so that a timer is on time beside other programs'
    /// busy threads), it would preempt the worker whose submit woke it and take presses one or
    /// two a commit; once it has given way, that worker goes on (answering, reading, submitting
    /// more) and the turn finds what came meanwhile. Not when a timer is due: the timer goes
    /// first, nor when stopping.
    package func shouldGiveWay(timerDue: Bool) -> Bool { !work.isEmpty && !stopping && !timerDue }

    private mutating func wake() -> Bool {
        guard sleeping else { return false }
        sleeping = false
        return true
    }
}
