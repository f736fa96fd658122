import ButtonEngine
import ButtonStore
import Buttons
import Dispatch
import JSON
import Logging
import OSC
import Synchronization
import ThreadSupport

/// buttond's OSC side (SPEC §10): messages in through the sequencer, as HTTP input is
/// (durable before anything is acted on), refusals answered to the sender on
/// `/buttond/error ss`; and feedback of every change to the `--osc-feedback` targets.
///
/// Made after the sequencer (it submits to it); the feedback, which the sequencer tells of
/// every commit, is made before it (`OSCFeedback.parse`) and handed in.
package final class OSCBridge: Sendable {
    package let server: OSCServer?
    let feedback: OSCFeedback
    let registry: Registry
    let logger: Logger
    private let input: OSCInput
    /// At most this many OSC messages wait for the sequencer at once (`OSCInFlight`).
    package static let maxInFlight = 1024

    /// Where OSC comes in; `ButtonServer` makes it from `serve`'s flags.
    package struct Configuration: Sendable {
        /// The address the port is bound on (`--host`).
        package var host: String
        /// `--osc-port`, UDP and TCP; nil: no OSC in.
        package var port: Int?
        /// `--osc-allow`: senders' CIDRs or addresses; nil: loopback only.
        package var allow: [String]?

        package init(host: String, port: Int?, allow: [String]?) {
            self.host = host
            self.port = port
            self.allow = allow
        }
    }

    /// Binds the port (with `--osc-port`) and reads the allow-list.
    package init(
        configuration: Configuration, registry: Registry, sequencer: Sequencer, feedback: OSCFeedback, logger: Logger
    ) throws(BridgeError) {
        self.registry = registry
        self.logger = logger
        self.feedback = feedback
        let input = OSCInput(sequencer: sequencer, feedback: feedback, logger: logger)
        self.input = input
        guard let port = configuration.port else {
            server = nil
            return
        }
        let allow: OSCAllowList
        switch OSCAllowList.parse(configuration.allow ?? OSCAllowList.loopback) {
        case .success(let list): allow = list
        case .failure(let bad): throw .init(description: "--osc-allow takes CIDRs (10.0.0.0/8, ::1/128) or addresses, not '\(bad.item)'")
        }
        do {
            server = try OSCServer(host: configuration.host, port: port, allow: { allow.allows($0.address) }) { messages, peer, reply in
                input.received(messages, from: peer, reply: reply)
            }
        } catch {
            throw .init(description: "--osc-port \(port): \(error.description)")
        }
    }

    /// Whether there is anything to do: a port, or feedback targets.
    package var isEnabled: Bool { server != nil || !feedback.targets.isEmpty }

    package func start() {
        registry.onChange { [feedback] change in feedback.registryChanged(change) }
        feedback.sync()  // a surface that outlived a restart of buttond shows what is now
        guard let server else { return }
        server.start()
        logger.log(.info, "osc listening", ["port": String(server.port)], force: true)
    }

    package func stop() {
        input.inFlight.close()
        server?.stop()
    }

    package var metrics: OSCMetrics {
        let counters = server?.counters ?? OSCServer.Counters()
        return OSCMetrics(
            messagesIn: counters.messages, refused: input.refused, droppedSenders: counters.refusedPeers,
            droppedMalformed: counters.malformed, feedbackSent: feedback.sent, feedbackFailed: feedback.failed,
            readerWaits: input.inFlight.state.waits)
    }
}

/// What arrives: each message parsed into a command and submitted; a refusal answered.
private final class OSCInput: Sendable {
    let sequencer: Sequencer
    let feedback: OSCFeedback
    let logger: Logger
    private let refusedCount = Atomic<Int>(0)
    /// At most `OSCBridge.maxInFlight` messages wait for the sequencer at once.
    let inFlight = OSCInFlight(limit: OSCBridge.maxInFlight)

    init(sequencer: Sequencer, feedback: OSCFeedback, logger: Logger) {
        self.sequencer = sequencer
        self.feedback = feedback
        self.logger = logger
    }

    var refused: Int { refusedCount.load(ordering: .relaxed) }

    func received(_ messages: [OSCMessage], from peer: OSCPeer, reply: @escaping OSCServer.Reply) {
        for message in messages {
            if message.address == OSCCommand.syncAddress {
                feedback.sync(reply: feedback.isTarget(peer) ? nil : reply)
                continue
            }
            do throws(ButtonsError) {
                let command = try OSCCommand.parse(message)
                inFlight.enter()
                sequencer.submit(command, by: "osc") { [self] result in
                    inFlight.leave()
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
}

/// What `/metrics` tells of OSC (handler deliveries are in `buttond_deliveries_total{kind="osc"}`).
package struct OSCMetrics {
    var messagesIn: Int
    var refused: Int
    var droppedSenders: Int
    var droppedMalformed: Int
    var feedbackSent: Int
    var feedbackFailed: Int
    var readerWaits: Int

    package func render(into text: inout MetricsText) {
        text.family("buttond_osc_messages_in_total", .counter, "OSC messages received from allowed senders.", messagesIn)
        text.family("buttond_osc_refused_total", .counter, "OSC messages refused (answered on /buttond/error).", refused)
        text.family(
            "buttond_osc_dropped_total", .counter, "OSC packets dropped, by reason.",
            samples: [("reason=\"sender\"", "\(droppedSenders)"), ("reason=\"malformed\"", "\(droppedMalformed)")])
        text.family(
            "buttond_osc_messages_out_total", .counter, "OSC feedback messages sent, by outcome.",
            samples: [("outcome=\"ok\"", "\(feedbackSent)"), ("outcome=\"failed\"", "\(feedbackFailed)")])
        text.family(
            "buttond_osc_reader_waits_total", .counter,
            "Times OSC input waited for the sequencer (\(OSCBridge.maxInFlight) messages unanswered).", readerWaits)
    }
}
