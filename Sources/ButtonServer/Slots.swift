import ButtonEngine
import ThreadSupport
import FoundationEssentials
import Glibc
import Dispatch

/// One registered button: its definition and live state machine behind its own lock, so
/// inputs for different buttons never wait on each other and one button's apply one at a time.
final class ButtonSlot: @unchecked Sendable {  // every `var` is guarded by `lock`
    let id: String
    let lock = Condition()
    var definition: ButtonDefinition
    var machine: ButtonMachine
    var removed = false
    /// Server time (ms) of the timer the scheduler holds for this button, if any.
    var scheduledAt: Int64?

    init(definition: ButtonDefinition, machine: ButtonMachine) {
        self.id = definition.id
        self.definition = definition
        self.machine = machine
    }

    /// Runs `body` with the lock held.
    func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T { try lock.locked(body) }
}

/// One registered action sheet and its open/closed state, behind its own lock.
final class SheetSlot: @unchecked Sendable {  // every `var` is guarded by `lock`
    let id: String
    let lock = Condition()
    var definition: SheetDefinition
    var machine: SheetMachine
    var removed = false

    init(definition: SheetDefinition) {
        self.id = definition.id
        self.definition = definition
        self.machine = SheetMachine(optionIDs: definition.options.map(\.id))
    }

    func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T { try lock.locked(body) }
}
