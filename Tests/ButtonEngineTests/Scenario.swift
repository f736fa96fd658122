import ButtonEngine
import Testing

/// A row of a table-driven test: a config, the steps, and the events expected from them.
struct Scenario: Sendable, CustomTestStringConvertible {
    let name: String
    var config = ButtonConfig()
    let steps: [Step]
    let expected: [String]

    init(_ name: String, config: ButtonConfig = ButtonConfig(), _ steps: [Step], _ expected: [String]) {
        self.name = name
        self.config = config
        self.steps = steps
        self.expected = expected
    }

    var testDescription: String { name }

    /// The events a fresh machine emits for the steps.
    func run() throws -> [String] {
        var machine = ButtonMachine(config: config)
        return try machine.run(steps).texts
    }
}
