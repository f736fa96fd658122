import Buttons
import MicroHTTP

/// A batch's answers resume their suspended connections together: one acquisition of the
/// server's suspend/resume lock per commit instead of one per press.
struct ResumeTogether: AnswerGrouping {
    let suspension: SuspendResume

    func together(_ answers: () -> Void) { suspension.resumingTogether(answers) }
}
