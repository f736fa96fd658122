import Outbox
import CurlHTTP
import Platform
import OSC
import ThreadSupport

/// Makes the sender of each handler, from what the senders of one dispatcher share: the one
/// `HTTPLoop` every webhook goes out on, the threads scripts and OSC messages are sent from,
/// the OSC sockets and connections, the destination rules (known once the server listens),
/// the user agent, and the process groups scripts leave behind. The one place that tells the
/// kinds of handler apart.
final class HandlerSenders: Sendable {
    let http: HTTPLoop
    let threads = DeliveryThreads()
    let osc = OSCClient()
    let userAgent: String
    /// The dispatcher's: webhooks' timestamps, scripts' timeouts and durations.
    let clock: Clock
    /// What scripts run and leave behind, stopped with the dispatcher.
    let scripts: ScriptGroups
    private let rulesBox = Locked(DestinationRules())

    init(userAgent: String, clock: Clock) {
        self.userAgent = userAgent
        self.clock = clock
        http = HTTPLoop(name: "buttond.http", nice: DeliveryThreads.nice, clock: clock)
        scripts = ScriptGroups(graceMs: ScriptRunner.killGraceMs, clock: clock)
    }

    /// Where webhooks and OSC messages may go, asked at every attempt.
    var rules: DestinationRules {
        get { rulesBox.withLock { $0 } }
        set { rulesBox.withLock { $0 = newValue } }
    }

    /// The sender of a handler's deliveries (`key`: its webhook secret's bytes); nil for a
    /// script without a scripts directory (this start): its deliveries wait.
    func sender(for action: DeliveryAction, key: [UInt8], scriptsDirectory: String?) -> (any DeliverySender)? {
        let rules: @Sendable () -> DestinationRules = { [rulesBox] in rulesBox.withLock { $0 } }
        switch action {
        case .webhook(let webhook):
            return WebhookSender(webhook: webhook, key: key, userAgent: userAgent, http: http, rules: rules, clock: clock)
        case .script(let script):
            guard let scriptsDirectory else { return nil }
            return ScriptSender(script: script, directory: scriptsDirectory, groups: scripts, threads: threads)
        case .osc(let action):
            return OSCSender(osc: action, rules: rules, client: osc, threads: threads)
        }
    }

    /// The loop's thread and the dispatcher's are not lowered as the old sixteen workers
    /// were (nice 5): two threads that only decide and move bytes, lowered on a busy machine,
    /// waited behind every other thread (scenario 2's paced lag median 206 ms instead of 1 ms),
    /// and input did not gain from it. What scripts spawn is still lowered (`DeliveryThreads`).
    func start() { http.start() }

    func stop() {
        http.stop()
        scripts.stopAll()
    }
}
