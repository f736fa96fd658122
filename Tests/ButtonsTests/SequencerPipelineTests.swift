import ButtonEngine
import ButtonStore
import Buttons
import CSQLite
import Foundation
import Synchronization
import Testing

/// The pipeline: a batch applied while the one before it is committed, and what happens to
/// it when that commit fails (it is applied again to what is committed: no seq of the failed
/// batch used, no input accepted on state that never became real).
@Suite("Sequencer pipeline (domain, no HTTP)")
struct SequencerPipelineTests {
    typealias Answer = Result<[ControlEvent], ButtonsError>

    /// A trigger that refuses every event of button `doomed`: its batches fail to commit.
    static func doom(_ path: String) {
        var db: OpaquePointer?
        #expect(sqlite3_open(path, &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        sqlite3_busy_timeout(db, 5000)
        let create = """
            CREATE TRIGGER doomed BEFORE INSERT ON events WHEN NEW.button = 'doomed'
            BEGIN SELECT RAISE(ABORT, 'disk says no'); END
            """
        #expect(sqlite3_exec(db, create, nil, nil, nil) == SQLITE_OK)
    }

    /// Submits `commands` a few microseconds apart, so that some land in the batch in flight,
    /// some in the one applied on top of it and some later; waits for every answer.
    static func submit(_ commands: [Command], to sequencer: Sequencer, spacing: Int) -> [Answer] {
        let answers = Mutex<[Int: Answer]>([:])
        let done = DispatchSemaphore(value: 0)
        for (index, command) in commands.enumerated() {
            if index > 0 && spacing > 0 { usleep(UInt32(spacing)) }
            sequencer.submit(command) { result in
                answers.withLock { $0[index] = result.map(Array.init) }
                done.signal()
            }
        }
        for _ in commands { done.wait() }
        return answers.withLock { answers in commands.indices.map { answers[$0]! } }
    }

    static func code(_ answer: Answer) -> String? {
        if case .failure(let error) = answer { return error.code }
        return nil
    }

    @Test(.timeLimit(.minutes(2))) func aBatchOnTopOfAFailedCommitIsAppliedAgain() throws {
        let f = try SequencerTests.Fixture(buttons: [#"{"id": "a", "maxTaps": 1}"#, #"{"id": "doomed", "maxTaps": 1}"#])
        defer { f.stop() }
        Self.doom(f.store.path)
        var accepted: [ControlEvent] = []
        var t: Int64 = 1_000_000
        for round in 0..<1000 {
            let answers = Self.submit(
                [
                    .input(button: "a", Input(.down, t: t)),
                    .press(button: "doomed", down: Input(.down, t: t), holdMs: 0),
                    .input(button: "a", Input(.up, t: t + 10)),
                ], to: f.sequencer, spacing: round % 11 * 8)
            #expect(Self.code(answers[1]) == "unavailable")
            var held = false
            switch answers[0] {
            case .success(let events):
                accepted += events
                held = true
                switch answers[2] {
                case .success(let events):
                    accepted += events
                    held = false
                case .failure(let error): #expect(error.code == "unavailable")
                }
            case .failure(let error):
                #expect(error.code == "unavailable")
                // Its down never happened: an up applied on top of it must not be kept.
                #expect(["unavailable", "not_down"].contains(Self.code(answers[2])), "round \(round): \(answers[2])")
            }
            if held {
                let up = Self.submit([.input(button: "a", Input(.up, t: t + 20))], to: f.sequencer, spacing: 0)
                accepted += try up[0].get()
            }
            t += 100
            f.clock.advance(100)
        }
        let log = try f.store.events(after: 0, limit: 100_000, button: nil)
        #expect(!log.isEmpty)
        #expect(log.map(\.seq) == Array(1...Int64(log.count)))
        #expect(log.map(\.seq) == accepted.map(\.seq).sorted())
        #expect(log.allSatisfy { $0.button == "a" })
        // Every press of `a` in the log is whole: down, up, tap, single-tap.
        let pattern = ["touch-down", "touch-up-inside", "tap", "single-tap"]
        #expect(log.count % 4 == 0)
        for (index, event) in log.enumerated() { #expect(event.type == pattern[index % 4], "seq \(event.seq)") }
    }
}
