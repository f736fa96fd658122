import ButtonEngine
import ButtonStore
import Buttons
import JSON
import Outbox
import Testing

/// The sequencer's decisions as a value, driven by hand: no thread, no store, no clock. Each
/// test plays the part of the sequencer's thread: it takes the batch a turn decides and says
/// whether its write went through.
@Suite("Sequencer state (decisions, no threads)")
struct SequencerStateTests {
    typealias Answer = Result<[ControlEvent], ButtonsError>

    /// Buttons by id, deliveries one per event when `deliver`, a queue of `depth`.
    final class World {
        var buttons: [String: ButtonSlot] = [:]
        var sheets: [String: SheetSlot] = [:]
        var deliver = false
        var depth = 0
        let ids = DeliveryIDs(after: 0)
        var state: SequencerState!

        init(_ buttons: [String], sheets: [String] = [], maxQueue: Int = 10) throws {
            for json in buttons {
                let definition = try ButtonDefinition.create(from: try JSONParser.parse(Array(json.utf8)), icons: [])
                self.buttons[definition.id] = ButtonSlot(definition: definition)
            }
            for json in sheets {
                let definition = try SheetDefinition.create(from: try JSONParser.parse(Array(json.utf8)))
                self.sheets[definition.id] = SheetSlot(definition: definition)
            }
            let environment = SequencerState.Environment(
                button: { [unowned self] id throws(ButtonsError) in
                    guard let slot = self.buttons[id] else { throw .notFound("no button '\(id)'") }
                    return slot
                },
                sheet: { [unowned self] id throws(ButtonsError) in
                    guard let slot = self.sheets[id] else { throw .notFound("no sheet '\(id)'") }
                    return slot
                },
                deliveries: { [unowned self] events, now in
                    deliver ? events.map { DeliveryRow(of: $0, to: "hook", ids: ids, now: now) } : []
                },
                queueDepth: { [unowned self] in depth }, idPrefix: "evt_test_", maxQueue: maxQueue, maxFutureMs: 60_000)
            state = SequencerState(environment: environment, nextSeq: 1)
        }

        /// What the sequencer's thread does with a batch whose write went through.
        func commit(_ batch: Batch) {
            for (_, entry) in batch.buttons { entry.slot.machine = entry.machine }
            for (_, entry) in batch.sheets { entry.slot.machine = entry.machine }
            state.committed(batch)
        }
    }

    /// Collects what each submission was answered, by its index.
    final class Replies: @unchecked Sendable {
        var answers: [Int: Answer] = [:]

        func submissions(_ commands: [Command]) -> [SequencerState.Submission] {
            commands.enumerated().map { index, command in
                SequencerState.Submission(command) { [self] result in answers[index] = result.map(Array.init) }
            }
        }

        /// Answers the batch's callers as the sequencer's thread does after a commit.
        func answer(_ batch: Batch) {
            for refusal in batch.refusals { refusal.reply(.failure(refusal.error)) }
            for answer in batch.answers { answer.reply(.success(batch.events[answer.events])) }
        }

        func types(_ index: Int) -> [String] { ((try? answers[index]?.get()) ?? []).map(\.type.rawValue) }
        func code(_ index: Int) -> String? {
            if case .failure(let error)? = answers[index] { return error.code }
            return nil
        }
    }

    @Test func aTurnNumbersEventsFromTheNextSeqAndGivesEachCallerItsOwn() throws {
        let world = try World([#"{"id": "a", "maxTaps": 1}"#, #"{"id": "b", "maxTaps": 1}"#])
        let replies = Replies()
        let batch = world.state.turn(
            replies.submissions([
                .input(button: "a", Input(.down, t: 1000)), .press(button: "b", down: Input(.down, t: 1000), holdMs: 0),
                .input(button: "a", Input(.up, t: 1010)),
            ]), now: 5000)
        #expect(batch.firstSeq == 1)
        #expect(batch.events.map(\.seq) == Array(1...8))
        #expect(batch.refusals.isEmpty)
        #expect(batch.buttons.count == 2)
        replies.answer(batch)
        #expect(replies.types(0) == ["touch-down"])
        #expect(replies.types(1) == ["touch-down", "touch-up-inside", "tap", "single-tap"])
        #expect(replies.types(2) == ["touch-up-inside", "tap", "single-tap"])
        // Decided, not committed: the slots still hold the machines before the turn, and the
        // next seq has not moved.
        #expect(world.buttons["a"]!.machine.state.held == false && world.buttons["a"]!.machine.clock == nil)
        #expect(world.state.nextSeq == 1)
        world.commit(batch)
        #expect(world.state.nextSeq == 9)
        #expect(world.state.turn(replies.submissions([.input(button: "a", Input(.down, t: 2000))]), now: 5000).firstSeq == 9)
    }

    /// Commands a push button `a` (one tap a series) at rest refuses, each for its own reason:
    /// an up without a down, an unknown button, a batch whose second down finds the button
    /// down, a face for a push button. `SequencerTests` submits them through the thread too.
    static let refused: [Command] = [
        .input(button: "a", Input(.up, t: 1000)),
        .input(button: "nope", Input(.down, t: 1000)),
        .batch([
            Command.BatchItem(button: "a", input: Input(.down, t: 1000)),
            Command.BatchItem(button: "a", input: Input(.down, t: 1010)),
        ]),
        .face(button: "a", face: 1),
    ]

    @Test func refusalsLeaveNoEventAndNoMachineBehind() throws {
        let world = try World([#"{"id": "a", "maxTaps": 1}"#])
        let replies = Replies()
        let batch = world.state.turn(
            replies.submissions(
                Self.refused + [
                    .input(button: "a", Input(.down, t: 999_999)), .press(button: "a", down: Input(.down, t: 1000), holdMs: 0),
                ]), now: 1000)
        replies.answer(batch)
        #expect(replies.code(0) == "not_down")
        #expect(replies.code(1) == "not_found")
        #expect(replies.code(2) == "already_down")
        if case .failure(let error)? = replies.answers[2] { #expect(error.details["index"] == .int(1)) }
        #expect(replies.code(3) == "not_toggle")
        #expect(replies.code(4) == "t_in_future")
        // Only the press made events, numbered from 1: the refused used none.
        #expect(batch.events.map(\.seq) == [1, 2, 3, 4])
        #expect(replies.types(5) == ["touch-down", "touch-up-inside", "tap", "single-tap"])
        #expect(batch.refusals.count == 5 && batch.answers.count == 1)
    }

    @Test func aDueTimerComesBeforeTheInputOfItsTurn() throws {
        let world = try World([#"{"id": "held", "longPressMs": 100}"#, #"{"id": "other", "maxTaps": 1}"#])
        let replies = Replies()
        let down = world.state.turn(replies.submissions([.input(button: "held", Input(.down))]), now: 1_000_000)
        world.commit(down)
        #expect(world.state.nextDeadline == 1_000_100)
        let early = world.state.turn(replies.submissions([.press(button: "other", down: Input(.down), holdMs: 0)]), now: 1_000_099)
        #expect(early.fired.isEmpty)
        world.commit(early)
        let late = world.state.turn(replies.submissions([.press(button: "other", down: Input(.down), holdMs: 0)]), now: 1_000_100)
        #expect(late.fired.map(\.id) == ["held"])
        let first = try #require(late.events.first)
        #expect(first.type.rawValue == "long-press" && first.seq == 6 && first.source.button == "held")
        // The caller gets only its own events, after the long press.
        #expect(late.answers.count == 1 && late.events[late.answers[0].events].first?.seq == 7)
        world.commit(late)
        // What is left is the held button's next timer (its max hold), not the long press.
        #expect(try #require(world.state.nextDeadline) > 1_000_100)
    }

    @Test func aTurnWithNothingDueAndNothingSubmittedHasNothingToWrite() throws {
        let world = try World([#"{"id": "a", "longPressMs": 100}"#])
        let batch = world.state.turn([], now: 1000)
        #expect(!batch.needsWrite && batch.refusals.isEmpty && batch.events.isEmpty)
        #expect(world.state.nextDeadline == nil)
    }

    @Test func aFailedWriteUsesNoSeqAndRetriesItsTimers() throws {
        let world = try World([#"{"id": "held", "longPressMs": 100}"#])
        let replies = Replies()
        world.commit(world.state.turn(replies.submissions([.input(button: "held", Input(.down))]), now: 1_000_000))
        let fired = world.state.turn([], now: 1_000_100)
        #expect(fired.events.map(\.type.rawValue) == ["long-press"])
        #expect(fired.events.first?.seq == 2)
        world.state.failed(fired, now: 1_000_100)
        #expect(world.state.nextSeq == 2)
        // The long press is tried again 100 ms later, numbered as if the failure never was.
        #expect(world.state.nextDeadline == 1_000_200)
        let again = world.state.turn([], now: 1_000_200)
        #expect(again.events.map(\.type.rawValue) == ["long-press"])
        #expect(again.events.first?.seq == 2)
        world.commit(again)
        #expect(world.state.nextSeq == 3)
    }

    @Test func aFailedWriteLeavesTheCommittedMachines() throws {
        let world = try World([#"{"id": "a", "maxTaps": 1}"#])
        let replies = Replies()
        let failed = world.state.turn(replies.submissions([.input(button: "a", Input(.down, t: 1000))]), now: 1000)
        world.state.failed(failed, now: 1000)
        // The down never happened: an up is refused, another down is taken with the same seq.
        let next = world.state.turn(
            replies.submissions([.input(button: "a", Input(.up, t: 1010)), .input(button: "a", Input(.down, t: 1020))]), now: 1020)
        replies.answer(next)
        #expect(replies.code(0) == "not_down")
        #expect(replies.types(1) == ["touch-down"])
        #expect(next.events.map(\.seq) == [1])
    }

    @Test func aFullDeliveryQueueRefusesInputThatWouldAddToIt() throws {
        let world = try World([#"{"id": "a", "maxTaps": 1}"#], maxQueue: 10)
        world.deliver = true
        world.depth = 6
        let replies = Replies()
        // Each press makes four events, so four deliveries: 6 + 4 fits, 6 + 8 does not.
        let batch = world.state.turn(
            replies.submissions([
                .press(button: "a", down: Input(.down, t: 1000), holdMs: 0),
                .press(button: "a", down: Input(.down, t: 1100), holdMs: 0),
            ]), now: 2000)
        replies.answer(batch)
        #expect(replies.types(0).count == 4)
        #expect(replies.code(1) == "unavailable")
        #expect(batch.events.count == 4 && batch.deliveries.count == 4)
        if case .failure(let error)? = replies.answers[1] { #expect(error.retryAfter == 5) }
    }

    @Test func aTimersEventsCarryWhoPressedAndAreNeverRefusedForTheQueue() throws {
        let world = try World([#"{"id": "a", "maxTaps": 2, "multiTapMs": 300}"#], maxQueue: 8)
        world.deliver = true
        let replies = Replies()
        let press = world.state.turn(
            [SequencerState.Submission(.press(button: "a", down: Input(.down), holdMs: 0), by: "lighting") { _ in }], now: 1000)
        world.commit(press)
        #expect(press.events.allSatisfy { $0.by == "lighting" })
        world.depth = 100  // full: input would be refused now
        let refused = world.state.turn(replies.submissions([.press(button: "a", down: Input(.down), holdMs: 0)]), now: 1001)
        replies.answer(refused)
        #expect(replies.code(0) == "unavailable")
        // The tap series' end is due: its single tap is written and delivered all the same.
        let ended = world.state.turn([], now: 1300)
        #expect(ended.events.map(\.type.rawValue) == ["single-tap"])
        #expect(ended.events.first?.by == "lighting")
        #expect(ended.deliveries.count == 1)
    }

    @Test func aSheetTimesOutOnItsTimer() throws {
        let world = try World(
            [], sheets: [#"{"id": "s", "title": "Scene", "options": [{"id": "one", "label": "One"}], "openTimeoutMs": 1000}"#])
        let replies = Replies()
        let open = world.state.turn(replies.submissions([.sheet("s", .open, t: nil)]), now: 10_000)
        replies.answer(open)
        #expect(replies.types(0) == ["sheet-open"])
        world.commit(open)
        #expect(world.state.nextDeadline == 11_000)
        let timeout = world.state.turn([], now: 11_000)
        #expect(timeout.firedSheets.map(\.id) == ["s"])
        #expect(timeout.events.map(\.type.rawValue) == ["sheet-cancel"])
    }
}

/// What request threads share with the sequencer's thread: who is queued, who must wake it.
@Suite("Inbox (decisions, no threads)")
struct InboxTests {
    static func command(_ id: String) -> Inbox.Work {
        .command(SequencerState.Submission(.reset(button: id)) { _ in })
    }

    static func ids(_ work: [Inbox.Work]) -> [String] {
        work.map { item in
            switch item {
            case .command(let submission):
                if case .reset(let id) = submission.command { return id }
                return "?"
            case .exclusive: return "job"
            }
        }
    }

    @Test func nothingIsTakenBeforeStartOrAfterStop() {
        var inbox = Inbox()
        do { let admission = inbox.submit(Self.command("a")); #expect(admission == .refused) }
        inbox.start()
        do { let admission = inbox.submit(Self.command("a")); #expect(admission == .queued) }
        let woken = inbox.stop()
        #expect(woken == false)  // awake: nobody to wake
        do { let admission = inbox.submit(Self.command("b")); #expect(admission == .refused) }
        // What was queued before the stop is still taken.
        #expect(Self.ids(inbox.take()) == ["a"])
        #expect(inbox.stopping)
        do { let sleeps = inbox.maySleep(); #expect(!sleeps) }
    }

    @Test func onlyTheFirstSubmitWakesASleepingThread() {
        var inbox = Inbox()
        inbox.start()
        do { let sleeps = inbox.maySleep(); #expect(sleeps) }
        do { let admission = inbox.submit(Self.command("a")); #expect(admission == .queuedWake) }
        do { let admission = inbox.submit(Self.command("b")); #expect(admission == .queued) }
        do { let admission = inbox.submit(.exclusive({})); #expect(admission == .queued) }
        // Work is queued: the thread may not sleep until it has taken it.
        do { let sleeps = inbox.maySleep(); #expect(!sleeps) }
        #expect(Self.ids(inbox.take()) == ["a", "b", "job"])
        #expect(inbox.isEmpty)
        do { let sleeps = inbox.maySleep(); #expect(sleeps) }
        inbox.woke()  // a timer: no submit is needed to wake it, so the next one does not
        do { let admission = inbox.submit(Self.command("c")); #expect(admission == .queued) }
    }

    @Test func aStopWakesASleepingThread() {
        var inbox = Inbox()
        inbox.start()
        do { let sleeps = inbox.maySleep(); #expect(sleeps) }
        let woken = inbox.stop()
        #expect(woken)
        do { let sleeps = inbox.maySleep(); #expect(!sleeps) }
    }
}

extension InboxTests {
    /// Woken with presses queued, the sequencer gives way once (so the worker that woke it goes
    /// on submitting); a due timer, an empty queue or a stop does not wait for that.
    @Test func wokenWithWorkItGivesWayUnlessATimerIsDue() {
        var inbox = Inbox()
        inbox.start()
        #expect(!inbox.shouldGiveWay(timerDue: false), "nothing queued")
        _ = inbox.submit(Self.command("a"))
        #expect(inbox.shouldGiveWay(timerDue: false))
        #expect(!inbox.shouldGiveWay(timerDue: true), "the timer goes first")
        _ = inbox.stop()
        #expect(!inbox.shouldGiveWay(timerDue: false), "stopping")
    }
}
