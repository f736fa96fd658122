import Outbox
import ButtonEngine
import ButtonStore
import Buttons
import Foundation
import JSON
import Synchronization
import Testing

@testable import ButtonStore

/// The sequencer alone, on a real store and a clock the test moves: which events each caller
/// gets, in which order, where timers fall, and what a refusal leaves behind.
@Suite("Sequencer (domain, no HTTP)")
struct SequencerTests {
    final class ManualClock: Sendable {
        let time = Atomic<Int64>(1_000_000)
        var clock: Clock { Clock { [self] in time.load(ordering: .relaxed) } }
        func advance(_ ms: Int64) { time.add(ms, ordering: .relaxed) }
    }

    struct NoDeliveries: DeliveryRules, DeliveryQueue {
        func deliveries(for events: ArraySlice<ControlEvent>, now: Int64) -> [DeliveryRow] { [] }
        var depth: Int { 0 }
        func added(_ rows: [DeliveryRow]) {}
        func wake() {}
    }

    final class Commits: CommitObserver {
        let batches = Mutex<[[Int64]]>([])
        func committed(_ events: [ControlEvent], states: [ButtonStateChange], answers: Int) {
            batches.withLock { $0.append(events.map(\.seq)) }
        }
    }

    struct Fixture {
        let store: ButtonStore
        let sequencer: Sequencer
        let clock: ManualClock
        let commits: Commits
        let log: EventLog
        let publisher: StreamPublisher

        init(buttons: [String]) throws {
            let directory = NSTemporaryDirectory() + "buttons-tests-\(UUID().uuidString)"
            store = try ButtonStore(directory: directory, clock: .system)
            let registry = Registry(store: store, maxButtons: 100)
            for json in buttons { _ = try registry.createButton(try ButtonDefinition.create(from: try JSONParser.parse(Array(json.utf8)), icons: [])) }
            log = try EventLog(store: store, retention: 10_000)
            clock = ManualClock()
            commits = Commits()
            publisher = StreamPublisher(log: log, publishedThrough: log.lastSeq)
            sequencer = Sequencer(
                registry: registry, log: log, publisher: publisher,
                handlers: NoDeliveries(), dispatcher: NoDeliveries(), observer: commits, clock: clock.clock, maxQueue: 10)
            sequencer.start()
        }

        func stop() {
            sequencer.stop()
            store.close()
        }

        /// Submits operations back to back (they may share a batch) and waits for every answer;
        /// `submitted` runs once all are queued, before the first answer is waited for.
        func submit(_ commands: [Command], submitted: () -> Void = {}) -> [Result<[ControlEvent], ButtonsError>] {
            let answers = Mutex<[Int: Result<[ControlEvent], ButtonsError>]>([:])
            let done = DispatchSemaphore(value: 0)
            for (index, command) in commands.enumerated() {
                sequencer.submit(command) { result in
                    answers.withLock { $0[index] = result.map(Array.init) }
                    done.signal()
                }
            }
            submitted()
            for _ in commands { done.wait() }
            return answers.withLock { answers in commands.indices.map { answers[$0]! } }
        }

        /// Keeps the sequencer thread busy (in an exclusive job) until the returned function is
        /// called: whatever is submitted meanwhile waits in its queue.
        func holdSequencer() -> @Sendable () -> Void {
            let started = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let sequencer = sequencer
            Thread {
                try? sequencer.exclusive {
                    started.signal()
                    release.wait()
                }
            }.start()
            started.wait()
            return { release.signal() }
        }
    }

    static func types(_ result: Result<[ControlEvent], ButtonsError>) -> [String] {
        (try? result.get())?.map(\.type.rawValue) ?? []
    }

    @Test func eachCallerGetsItsOwnEventsInSubmissionOrder() throws {
        let f = try Fixture(buttons: [#"{"id": "a", "maxTaps": 1}"#, #"{"id": "b", "maxTaps": 1}"#])
        defer { f.stop() }
        var commands: [Command] = []
        for k in 0..<50 {
            commands.append(.press(button: k % 2 == 0 ? "a" : "b", down: Input(.down, t: Int64(1000 + k * 10)), holdMs: 5))
        }
        // All 50 are queued while the sequencer is busy, so its next turn takes them together.
        let release = f.holdSequencer()
        let answers = f.submit(commands, submitted: release)
        var next: Int64 = 1
        for (k, answer) in answers.enumerated() {
            let events = try answer.get()
            #expect(events.map(\.type.rawValue) == ["touch-down", "touch-up-inside", "tap", "single-tap"])
            #expect(events.allSatisfy { $0.source == .button(k % 2 == 0 ? "a" : "b") })
            // In submission order, one after another: no caller's events interleave another's.
            #expect(events.map(\.seq) == Array(next..<next + 4))
            next += 4
        }
        // Fewer transactions than callers: they were batched, all 50 in one. The observer
        // hears of a commit after its callers are answered: once the sequencer has stopped,
        // it has heard of every one.
        f.sequencer.stop()
        let batches = f.commits.batches.withLock { $0 }
        #expect(batches.count < answers.count)
        #expect(batches == [Array(1...200)])
    }

    /// An event is stored compact (no JSON, no id) and read back as the very bytes its caller
    /// was answered with: the answer, the stream and the history render it with one renderer.
    @Test func historyAnswersTheBytesTheCallerGot() throws {
        let f = try Fixture(buttons: [#"{"id": "a", "maxTaps": 2}"#])
        defer { f.stop() }
        let answered = Mutex<[ControlEvent]>([])
        let done = DispatchSemaphore(value: 0)
        for (k, sender) in ["kiosk-1", "say \"hi\" ü", nil].enumerated() {
            f.clock.advance(400)
            f.sequencer.submit(.press(button: "a", down: Input(.down, pointer: "p\(k)"), holdMs: 30), by: sender) { result in
                answered.withLock { $0 += (try? result.get()) ?? [] }
                done.signal()
            }
            done.wait()
        }
        f.clock.advance(1000)
        _ = f.submit([.press(button: "a", down: Input(.down), holdMs: 0)])
        let events = answered.withLock { $0 }
        #expect(events.count >= 9)
        let history = try f.store.events(after: 0, limit: 100, button: nil)
        let bySeq = Dictionary(uniqueKeysWithValues: history.map { ($0.seq, $0.json) })
        for event in events {
            #expect(bySeq[event.seq] == event.json, "\(String(decoding: event.json, as: UTF8.self))")
        }
        let compact = try f.store.withReader { connection throws(StoreError) in
            try connection.statement("SELECT COUNT(*) FROM events WHERE json IS NULL AND id IS NULL").scalar()
        }
        #expect(compact == Int64(history.count))
    }

    @Test func aDueTimerFiresAheadOfQueuedInput() throws {
        let f = try Fixture(buttons: [#"{"id": "held", "longPressMs": 100}"#, #"{"id": "other", "maxTaps": 1}"#])
        defer { f.stop() }
        let down = f.submit([.input(button: "held", Input(.down))])
        #expect(Self.types(down[0]) == ["touch-down"])
        f.clock.advance(99)
        let early = try f.submit([.press(button: "other", down: Input(.down), holdMs: 0)])[0].get()
        #expect(early.first?.seq == 2)  // the long press is not due yet
        f.clock.advance(1)
        // The deadline has passed: the long press is written before this input, in the same
        // turn, so it comes first in seq and the caller still gets only its own events.
        let late = try f.submit([.press(button: "other", down: Input(.down), holdMs: 0)])[0].get()
        #expect(late.map(\.type.rawValue) == ["touch-down", "touch-up-inside", "tap", "single-tap"])
        #expect(late.first?.seq == 7)
        let history = try f.store.events(after: 0, limit: 100, button: "held")
        #expect(history.map(\.type) == ["touch-down", "long-press"])
        #expect(history.last?.seq == 6)
        #expect(history.last?.t == 1_000_100)
    }

    @Test func refusalsAreAnsweredAtOnceAndUseNoSeq() throws {
        let f = try Fixture(buttons: [#"{"id": "a", "maxTaps": 1}"#])
        defer { f.stop() }
        let answers = f.submit(SequencerStateTests.refused + [.press(button: "a", down: Input(.down, t: 1000), holdMs: 0)])
        #expect(throws: ButtonsError.self) { try answers[0].get() }
        if case .failure(let error) = answers[0] { #expect(error.kind == .conflict && error.code == "not_down") }
        if case .failure(let error) = answers[1] { #expect(error.kind == .notFound) }
        // All or nothing: the batch's first down did not stick.
        if case .failure(let error) = answers[2] { #expect(error.details["index"] == .int(1)) }
        if case .failure(let error) = answers[3] { #expect(error.code == "not_toggle") }
        #expect(try answers[4].get().map(\.seq) == [1, 2, 3, 4])
    }

    @Test(.timeLimit(.minutes(1))) func commandsWithNoEventsAreAnsweredToo() throws {
        let f = try Fixture(buttons: [#"{"id": "a"}"#])
        defer { f.stop() }
        // An empty batch, and a move that changes nothing: nothing to write, still an answer.
        let answers = f.submit([
            .batch([]), .input(button: "a", Input(.down, t: 1000)), .input(button: "a", Input(.move, t: 1010, inside: true)),
        ])
        #expect(try answers[0].get().isEmpty)
        #expect(Self.types(answers[1]) == ["touch-down"])
        #expect(try answers[2].get().isEmpty)
        #expect(try f.submit([.batch([])])[0].get().isEmpty)
    }

    /// Many callers at once, each pressing its own button: every answer holds exactly its
    /// caller's press (four events, numbered one after another), no seq is used twice or
    /// skipped, and the log holds what the callers were told.
    @Test func concurrentAnswersCarryExactlyTheirOwnEvents() throws {
        let clients = 12, presses = 40
        let f = try Fixture(buttons: (0..<clients).map { "{\"id\": \"c\($0)\", \"maxTaps\": 1}" })
        defer { f.stop() }
        let answers = Mutex<[[ControlEvent]]>([])
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        for i in 0..<clients {
            group.enter()
            Thread {
                defer { group.leave() }
                let reply = DispatchSemaphore(value: 0)
                for k in 0..<presses {
                    let result = Mutex<Result<[ControlEvent], ButtonsError>?>(nil)
                    f.sequencer.submit(.press(button: "c\(i)", down: Input(.down, t: Int64(1000 + k * 100)), holdMs: 0)) { answer in
                        result.withLock { $0 = answer.map(Array.init) }
                        reply.signal()
                    }
                    reply.wait()
                    switch result.withLock({ $0 }) {
                    case .success(let events)?: answers.withLock { $0.append(events) }
                    case .failure(let error)?: failures.withLock { $0.append("c\(i) #\(k): \(error)") }
                    case nil: failures.withLock { $0.append("c\(i) #\(k): no answer") }
                    }
                }
            }.start()
        }
        group.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let all = answers.withLock { $0 }
        #expect(all.count == clients * presses)
        var seqs: [Int64] = []
        for events in all {
            // A press of a one-tap button: exactly these four, all of this press's button,
            // numbered one after another (an operation's events are never split).
            #expect(events.map(\.type.rawValue) == ["touch-down", "touch-up-inside", "tap", "single-tap"])
            #expect(Set(events.map(\.source.id)).count == 1)
            let own = events.map(\.seq)
            #expect(own == Array(own.first!..<own.first! + Int64(own.count)))
            seqs += own
        }
        // Every seq from 1 to the end once: no gap, nothing twice, and the log agrees.
        #expect(seqs.sorted() == Array(1...Int64(clients * presses * 4)))
        let logged = try f.store.events(after: 0, limit: 1000, button: nil)
        #expect(logged.count == 1000)
        let bySeq = Dictionary(uniqueKeysWithValues: all.flatMap { $0 }.map { ($0.seq, $0) })
        for event in logged {
            let told = bySeq[event.seq]
            #expect(told?.json == event.json, "seq \(event.seq)")
            #expect(told?.type.rawValue == event.type && told?.source.id == event.button)
        }
    }

    /// Every commit of button `doomed`'s events fails while the returned trigger is in the store.
    static func failCommits(of button: String, in store: ButtonStore) throws {
        try store.withConnection { connection throws(StoreError) in
            try connection.execute(
                """
                CREATE TRIGGER doomed BEFORE INSERT ON events WHEN NEW.button = '\(button)'
                BEGIN SELECT RAISE(ABORT, 'disk says no'); END
                """, doing: "adding a failing trigger")
        }
    }

    @Test func aFailedCommitUsesNoSeqNumbers() throws {
        let f = try Fixture(buttons: [#"{"id": "ok", "maxTaps": 1}"#, #"{"id": "doomed", "maxTaps": 1}"#])
        defer { f.stop() }
        let press = { (button: String, t: Int64) in Command.press(button: button, down: Input(.down, t: t), holdMs: 0) }
        let before = try f.submit([press("ok", 1000)])[0].get()
        #expect(before.last?.seq == 4)
        try Self.failCommits(of: "doomed", in: f.store)
        for k in 0..<20 {
            let refused = f.submit([press("doomed", Int64(2000 + k * 100))])[0]
            #expect(throws: ButtonsError.self) { try refused.get() }
            if case .failure(let error) = refused {
                #expect(error.kind == .unavailable)  // 503 over HTTP
                #expect(error.code == "unavailable")
            }
        }
        // Nothing of a refused press happened: the button is not held, its clock unmoved.
        let doomed = try f.sequencer.registry.button("doomed")
        #expect(doomed.locked { doomed.machine.state.held } == false)
        try f.store.withConnection { connection throws(StoreError) in
            try connection.execute("DROP TRIGGER doomed", doing: "dropping the failing trigger")
        }
        let after = try f.submit([press("doomed", 1500)])[0].get()
        #expect(after.map(\.seq) == [5, 6, 7, 8])
        let ok = try f.submit([press("ok", 3000)])[0].get()
        #expect(ok.first?.seq == 9)
        let logged = try f.store.events(after: 0, limit: 100, button: nil).map(\.seq)
        #expect(logged == Array(1...12))
    }
}
