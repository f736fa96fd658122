import ButtonEngine
import ButtonStore
import Buttons
import Dispatch
import OSC
import Synchronization

/// Tells the `--osc-feedback` targets of every change, so a surface's widgets follow the
/// server: `/buttond/button/<id>/held i`, `/face i`, `/status s`, `/color s` (the colour as
/// shown: a toggle's face's), and the guards' `/armed i` and `/enabled i` after a commit or a
/// change of definition, `/buttond/button/<id>/event s` (sheets `/buttond/sheet/<id>/event`,
/// then `/buttond/sheet/<id>/open i`) for each control event; and everything's current state at
/// start and on `/buttond/sync` (`sync`), so a surface that starts late is brought up to date.
/// Sent off the sequencer thread, in order.
package final class OSCFeedback: CommitObserver, Sendable {
    package let targets: [OSCClient.Destination]
    let registry: Registry
    /// Its own sockets and connections (not the OSC handlers').
    private let client = OSCClient()
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
            if case .sheet(let id) = event.source, let open = Self.opens(event.type) { messages.append(Self.sheetState(of: id, open: open)) }
        }
        send(messages)
    }

    /// Whether a sheet's event leaves it open (nil: it says nothing of that).
    static func opens(_ type: EventType) -> Bool? {
        switch type {
        case .sheetOpen: true
        case .select, .sheetCancel: false
        default: nil
        }
    }

    static func sheetState(of id: String, open: Bool) -> OSCMessage {
        OSCMessage("/buttond/sheet/\(id)/open", [.int32(open ? 1 : 0)])
    }

    /// Every button's and sheet's current feedback, as committed.
    func snapshot() -> [OSCMessage] {
        var messages: [OSCMessage] = []
        for slot in registry.buttonSlots() {
            let (definition, state, removed) = slot.locked { (slot.definition, slot.machine.state, slot.removed) }
            if !removed { messages += Self.state(of: definition.id, held: state.held, face: state.face, armed: state.armed, definition: definition) }
        }
        for slot in registry.sheetSlots {
            let (open, removed) = slot.locked { (slot.machine.isOpen, slot.removed) }
            if !removed { messages.append(Self.sheetState(of: slot.id, open: open)) }
        }
        return messages
    }

    /// Whether `peer` sends from where a target listens (then a sync's answer is its feedback).
    func isTarget(_ peer: OSCPeer) -> Bool {
        let loopback = ["localhost", "127.0.0.1", "::1"]
        return targets.contains { target in
            target.transport == peer.transport && target.port == peer.port
                && (target.host == peer.host || (loopback.contains(target.host) && loopback.contains(peer.host)))
        }
    }

    /// Brings surfaces up to date: every target gets the whole current state, and so does
    /// `reply` (the sender of a `/buttond/sync`) unless it is a target already.
    package func sync(reply: (@Sendable (OSCMessage) -> Void)? = nil) {
        let messages = snapshot()
        send(messages)
        guard let reply else { return }
        queue.async {
            for message in messages { reply(message) }
        }
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
            OSCMessage(base + "status", [.string(definition.status ?? "")]), OSCMessage(base + "color", [.string(definition.shownColor(face: face) ?? "")]),
            OSCMessage(base + "armed", [.int32(armed ? 1 : 0)]), OSCMessage(base + "enabled", [.int32(definition.config.enabled ? 1 : 0)]),
        ]
    }

    private func send(_ messages: [OSCMessage]) {
        guard !messages.isEmpty else { return }
        queue.async { [self] in
            for target in targets {
                for message in messages {
                    switch client.send(message, transport: target.transport, host: target.host, port: target.port) {
                    case .success: sentCount.add(1, ordering: .relaxed)
                    case .failure: failedCount.add(1, ordering: .relaxed)
                    }
                }
            }
        }
    }
}
