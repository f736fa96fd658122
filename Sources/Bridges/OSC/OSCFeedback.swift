import ButtonEngine
import ButtonStore
import Buttons
import Dispatch
import OSC
import Synchronization

/// Tells the `--osc-feedback` targets of every change, so a surface's widgets follow the
/// server: `/buttond/button/<id>/held i`, `/face i`, `/status s`, `/color s`, and the guards'
/// `/armed i` and `/enabled i` after a commit or a change of definition, and
/// `/buttond/button/<id>/event s` (sheets `/buttond/sheet/<id>/event`) for each control
/// event. Sent off the sequencer thread, in commit order.
package final class OSCFeedback: CommitObserver, Sendable {
    package let targets: [OSCClient.Destination]
    let registry: Registry
    private let queue = DispatchQueue(label: "buttond.osc.feedback")
    private let sentCount = Atomic<Int>(0)
    private let failedCount = Atomic<Int>(0)

    init(targets: [OSCClient.Destination], registry: Registry) {
        self.targets = targets
        self.registry = registry
    }

    /// The `--osc-feedback` targets, or why one is not an OSC URL.
    package static func parse(_ urls: [String], registry: Registry) throws(BridgeError) -> OSCFeedback {
        var targets: [OSCClient.Destination] = []
        for url in urls {
            guard let target = OSCClient.Destination(url: url) else {
                throw .init(description: "--osc-feedback must be osc.udp://HOST:PORT or osc.tcp://HOST:PORT, not '\(url)'")
            }
            targets.append(target)
        }
        return OSCFeedback(targets: targets, registry: registry)
    }

    var sent: Int { sentCount.load(ordering: .relaxed) }
    var failed: Int { failedCount.load(ordering: .relaxed) }

    package func committed(_ events: [ControlEvent], states: [ButtonStateChange], answers: Int) {
        guard !targets.isEmpty else { return }
        var messages: [OSCMessage] = []
        for state in states {
            guard let slot = try? registry.button(state.id) else { continue }
            messages += Self.state(
                of: slot.id, held: state.held, face: state.face, armed: state.armedUntil != nil,
                definition: slot.locked { slot.definition })
        }
        for event in events {
            let source: String
            switch event.source {
            case .button(let id): source = "button/" + id
            case .sheet(let id): source = "sheet/" + id
            }
            messages.append(OSCMessage("/buttond/\(source)/event", [.string(event.type.rawValue)]))
        }
        send(messages)
    }

    /// A button's definition changed (its status, colour, `enabled`): its state again.
    func registryChanged(_ change: Registry.RegistryChange) {
        guard !targets.isEmpty, case .button(let definition) = change, let slot = try? registry.button(definition.id) else { return }
        let state = slot.locked { slot.machine.state }
        send(Self.state(of: definition.id, held: state.held, face: state.face, armed: state.armed, definition: definition))
    }

    static func state(of id: String, held: Bool, face: Int, armed: Bool, definition: ButtonDefinition) -> [OSCMessage] {
        let base = "/buttond/button/\(id)/"
        return [
            OSCMessage(base + "held", [.int32(held ? 1 : 0)]), OSCMessage(base + "face", [.int32(Int32(face))]),
            OSCMessage(base + "status", [.string(definition.status ?? "")]), OSCMessage(base + "color", [.string(definition.color ?? "")]),
            OSCMessage(base + "armed", [.int32(armed ? 1 : 0)]), OSCMessage(base + "enabled", [.int32(definition.config.enabled ? 1 : 0)]),
        ]
    }

    private func send(_ messages: [OSCMessage]) {
        guard !messages.isEmpty else { return }
        queue.async { [self] in
            for target in targets {
                for message in messages {
                    switch OSCClient.send(message, transport: target.transport, host: target.host, port: target.port) {
                    case .success: sentCount.add(1, ordering: .relaxed)
                    case .failure: failedCount.add(1, ordering: .relaxed)
                    }
                }
            }
        }
    }
}
