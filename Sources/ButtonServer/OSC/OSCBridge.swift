import ButtonEngine
import ButtonStore
import Buttons
import Dispatch
import JSON
import OSC
import Synchronization
import ThreadSupport

/// buttond's OSC side (SPEC §10): messages in through the sequencer, as HTTP input is
/// (durable before anything is acted on), refusals answered to the sender on
/// `/buttond/error ss`; and feedback of every change to the `--osc-feedback` targets.
final class OSCBridge: CommitObserver {
    let server: OSCServer?
    let feedback: OSCFeedback
    let registry: Registry
    let logger: Logger
    private let sequencer = Locked<Sequencer?>(nil)
    private let refusedCount = Atomic<Int>(0)

    /// Binds the port (with `--osc-port`) and reads the allow-list and feedback targets.
    init(options: ServeOptions, registry: Registry, logger: Logger) throws(ButtonServerApp.StartError) {
        self.registry = registry
        self.logger = logger
        var targets: [OSCClient.Destination] = []
        for url in options.oscFeedback {
            guard let target = OSCClient.Destination(url: url) else {
                throw .init(description: "--osc-feedback must be osc.udp://HOST:PORT or osc.tcp://HOST:PORT, not '\(url)'")
            }
            targets.append(target)
        }
        feedback = OSCFeedback(targets: targets, registry: registry)
        guard let port = options.oscPort else {
            server = nil
            return
        }
        let allow: OSCAllowList
        switch OSCAllowList.parse(options.oscAllow ?? OSCAllowList.loopback) {
        case .success(let list): allow = list
        case .failure(let bad): throw .init(description: "--osc-allow takes CIDRs (10.0.0.0/8, ::1/128) or addresses, not '\(bad.item)'")
        }
        let received = Locked<OSCBridge?>(nil)  // the server's threads start only in `start`, after this is set
        do {
            server = try OSCServer(host: options.host, port: port, allow: { allow.allows($0.address) }) { messages, peer, reply in
                received.withLock { $0 }?.received(messages, from: peer, reply: reply)
            }
        } catch {
            throw .init(description: "--osc-port \(port): \(error.description)")
        }
        received.withLock { $0 = self }
    }

    /// Whether there is anything to do: a port, or feedback targets.
    var isEnabled: Bool { server != nil || !feedback.targets.isEmpty }

    func start(sequencer: Sequencer) {
        self.sequencer.withLock { $0 = sequencer }
        registry.onChange { [feedback] change in feedback.registryChanged(change) }
        guard let server else { return }
        server.start()
        logger.log(.info, "osc listening", ["port": String(server.port)], force: true)
    }

    func stop() { server?.stop() }

    func committed(_ events: [ControlEvent], states: [ButtonStateChange], answers: Int) {
        feedback.committed(events, states: states)
    }

    private func received(_ messages: [OSCMessage], from peer: OSCPeer, reply: @escaping OSCServer.Reply) {
        guard let sequencer = sequencer.withLock({ $0 }) else { return }
        for message in messages {
            do throws(ButtonsError) {
                let command = try OSCCommand.parse(message)
                sequencer.submit(command) { [self] result in
                    if case .failure(let error) = result { refused(error, message: message, peer: peer, reply: reply) }
                }
            } catch {
                refused(error, message: message, peer: peer, reply: reply)
            }
        }
    }

    /// `/buttond/error ss` (code, message) back to the sender, logged and counted.
    private func refused(_ error: ButtonsError, message: OSCMessage, peer: OSCPeer, reply: OSCServer.Reply) {
        refusedCount.add(1, ordering: .relaxed)
        logger.log(
            .info, "osc message refused",
            ["address": String(message.address.prefix(200)), "from": peer.description, "code": error.code, "error": error.message])
        reply(OSCMessage("/buttond/error", [.string(error.code), .string(error.message)]))
    }

    var metrics: OSCMetrics {
        let counters = server?.counters ?? OSCServer.Counters()
        return OSCMetrics(
            messagesIn: counters.messages, refused: refusedCount.load(ordering: .relaxed), droppedSenders: counters.refusedPeers,
            droppedMalformed: counters.malformed, feedbackSent: feedback.sent, feedbackFailed: feedback.failed)
    }
}

/// What `/metrics` tells of OSC (handler deliveries are in `buttond_deliveries_total{kind="osc"}`).
struct OSCMetrics {
    var messagesIn: Int
    var refused: Int
    var droppedSenders: Int
    var droppedMalformed: Int
    var feedbackSent: Int
    var feedbackFailed: Int

    func render(into text: inout String) {
        text += "# HELP buttond_osc_messages_in_total OSC messages received from allowed senders.\n# TYPE buttond_osc_messages_in_total counter\n"
        text += "buttond_osc_messages_in_total \(messagesIn)\n"
        text += "# HELP buttond_osc_refused_total OSC messages refused (answered on /buttond/error).\n# TYPE buttond_osc_refused_total counter\n"
        text += "buttond_osc_refused_total \(refused)\n"
        text += "# HELP buttond_osc_dropped_total OSC packets dropped, by reason.\n# TYPE buttond_osc_dropped_total counter\n"
        text += "buttond_osc_dropped_total{reason=\"sender\"} \(droppedSenders)\nbuttond_osc_dropped_total{reason=\"malformed\"} \(droppedMalformed)\n"
        text += "# HELP buttond_osc_messages_out_total OSC feedback messages sent, by outcome.\n# TYPE buttond_osc_messages_out_total counter\n"
        text += "buttond_osc_messages_out_total{outcome=\"ok\"} \(feedbackSent)\nbuttond_osc_messages_out_total{outcome=\"failed\"} \(feedbackFailed)\n"
    }
}
