import Outbox

/// Runs a script handler's attempts (`ScriptRunner`: a process of its own, waited for on a
/// thread of its `DeliveryThreads`), its arguments and environment filled from the event.
struct ScriptSender: BlockingDeliverySender {
    let script: ScriptAction
    let directory: String
    /// What scripts leave behind, stopped with the dispatcher.
    let groups: ScriptGroups
    let threads: DeliveryThreads
    let kind = "script"
    var destination: String { "script:" + script.name }

    func sendWaiting(_ rows: [DeliveryRow]) -> [AttemptResult] {
        rows.map { row in
            let fields = Placeholders(row.event)
            return ScriptRunner.run(
                script, in: directory, arguments: script.args.map(fields.substitute),
                environment: ScriptRunner.environment(
                    event: row.event.json, type: row.event.type.rawValue, button: row.event.source.id, seq: row.event.seq,
                    attempt: row.attempts + 1),
                stdin: row.payload, groups: groups
            ).result
        }
    }
}
