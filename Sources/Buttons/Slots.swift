import ButtonEngine
import ThreadSupport
import Platform

/// One registered button: its definition and live state machine behind its own lock, so
/// inputs for different buttons never wait on each other and one button's apply one at a time.
package final class ButtonSlot: @unchecked Sendable {  // every `var` is guarded by `lock`
    package let id: String
    package let lock = Condition()
    package var definition: ButtonDefinition
    package var machine: ButtonMachine
    package var removed = false
    /// Server time (ms) of the timer the scheduler holds for this button, if any.
    package var scheduledAt: Int64?

    package init(definition: ButtonDefinition, machine: ButtonMachine) {
        self.id = definition.id
        self.definition = definition
        self.machine = machine
    }

    /// Runs `body` with the lock held.
    package func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T { try lock.locked(body) }
}

/// One registered action sheet and its open/closed state, behind its own lock.
package final class SheetSlot: @unchecked Sendable {  // every `var` is guarded by `lock`
    package let id: String
    package let lock = Condition()
    package var definition: SheetDefinition
    package var machine: SheetMachine
    package var removed = false

    package init(definition: SheetDefinition) {
        self.id = definition.id
        self.definition = definition
        self.machine = SheetMachine(optionIDs: definition.options.map(\.id))
    }

    package func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T { try lock.locked(body) }
}
