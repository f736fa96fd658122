import Buttons
import ButtonEngine
import Handlers
import JSON

/// What importing a config does to the registry (SPEC §3 "Configuration as code"), per kind:
/// the ids it creates, changes and deletes, and how many it leaves as they are. The same plan
/// answers a dry run, an import, `--config` at start and SIGHUP, and `buttond config diff`
/// prints it.
package struct ConfigPlan: Sendable, Equatable {
    /// One kind's part of the plan.
    package struct Changes: Sendable, Equatable {
        var create: [String] = []
        var change: [String] = []
        var delete: [String] = []
        var unchanged = 0
        /// For each changed id, its changed members: what they were and what they become.
        var details: [String: [String: (from: JSONValue, to: JSONValue)]] = [:]

        package static func == (a: Changes, b: Changes) -> Bool {
            a.create == b.create && a.change == b.change && a.delete == b.delete && a.unchanged == b.unchanged
        }

        var isEmpty: Bool { create.isEmpty && change.isEmpty && delete.isEmpty }

        /// Compares what is stored with what the document says, by id, in the document's order
        /// (deletions in the registry's).
        init(current: [(id: String, json: JSONValue)], wanted: [(id: String, json: JSONValue)]) {
            let now = Dictionary(current.map { ($0.id, $0.json) }, uniquingKeysWith: { a, _ in a })
            let kept = Set(wanted.map(\.id))
            for (id, json) in wanted {
                guard let old = now[id] else {
                    create.append(id)
                    continue
                }
                let differences = Self.differences(old, json)
                if differences.isEmpty {
                    unchanged += 1
                } else {
                    change.append(id)
                    details[id] = differences
                }
            }
            delete = current.map(\.id).filter { !kept.contains($0) }
        }

        /// The top-level members whose values differ (a missing member is `null`).
        static func differences(_ old: JSONValue, _ new: JSONValue) -> [String: (from: JSONValue, to: JSONValue)] {
            guard case .object(let a) = old, case .object(let b) = new else { return old == new ? [:] : ["": (old, new)] }
            var found: [String: (from: JSONValue, to: JSONValue)] = [:]
            for key in Set(a.keys).union(b.keys) where a[key] != b[key] {
                found[key] = (a[key] ?? .null, b[key] ?? .null)
            }
            return found
        }

        var json: JSONValue {
            var object: [String: JSONValue] = [
                "create": .array(create.map { .string($0) }), "change": .array(change.map { .string($0) }),
                "delete": .array(delete.map { .string($0) }), "unchanged": .int(Int64(unchanged)),
            ]
            if !details.isEmpty {
                object["details"] = .object(
                    details.mapValues { members in
                        .object(members.mapValues { ["from": $0.from, "to": $0.to] })
                    })
            }
            return .object(object)
        }
    }

    var buttons: Changes
    var sheets: Changes
    var handlers: Changes

    var isEmpty: Bool { buttons.isEmpty && sheets.isEmpty && handlers.isEmpty }

    package var json: JSONValue { ["buttons": buttons.json, "sheets": sheets.json, "handlers": handlers.json] }

    /// The plan's counts, as its one log line gives them.
    package var counts: [(String, String)] {
        var fields: [(String, String)] = []
        for (kind, changes) in [("buttons", buttons), ("sheets", sheets), ("handlers", handlers)] {
            fields.append((kind + "_created", String(changes.create.count)))
            fields.append((kind + "_changed", String(changes.change.count)))
            fields.append((kind + "_deleted", String(changes.delete.count)))
            fields.append((kind + "_unchanged", String(changes.unchanged)))
        }
        return fields
    }
}

extension RegistryConfig {
    /// Gives each handler of the document without an id the id of the existing handler it
    /// equals (same owner, events, option and destination), so an import matches it rather
    /// than making a second one; each existing handler is matched at most once.
    mutating func matchHandlers(to existing: [Handler], given ids: [Bool], view: HandlerView) {
        var taken = Set(handlers.indices.filter { ids[$0] }.map { handlers[$0].id })
        for index in handlers.indices where !ids[index] {
            let wanted = handlers[index]
            if let match = existing.first(where: { !taken.contains($0.id) && Self.sameDuty($0, wanted, view: view) }) {
                handlers[index].id = match.id
                taken.insert(match.id)
            }
        }
    }

    /// The same owner, events, option and destination.
    static func sameDuty(_ a: Handler, _ b: Handler, view: HandlerView) -> Bool {
        a.owner == b.owner && Set(a.on) == Set(b.on) && a.option == b.option && view.target(a) == view.target(b)
    }

    /// What applying this document to the registry as it is now would do.
    func plan(registry: Registry, handlers current: HandlerRegistry, view: HandlerView) -> ConfigPlan {
        ConfigPlan(
            buttons: .init(
                current: registry.buttonSlots().map { slot in (slot.id, slot.locked { slot.definition.json }) },
                wanted: buttons.map { ($0.id, $0.json) }),
            sheets: .init(
                current: registry.sheetSlots.map { slot in (slot.id, slot.locked { slot.definition.json }) },
                wanted: sheets.map { ($0.id, $0.json) }),
            handlers: .init(
                current: current.all.map { ($0.id, view.json($0)) }, wanted: handlers.map { ($0.id, view.json($0)) }))
    }
}
