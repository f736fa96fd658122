import FoundationEssentials
import Platform
import CurlHTTP

/// `buttond press|down|up|input|buttons|events|health`: a client for shell scripts and test
/// engineers on the same binary. Exit codes: 0 ok, 1 the server said no (its message on
/// stderr), 2 usage.
public enum ClientCommand {
    struct Usage: Error {
        var message: String
    }

    static func fail(_ message: String) -> Int32 {
        writeAll(2, ("buttond: \(message)\n".utf8))
        return 1
    }

    /// Runs `command`; `clock` (`Clock.system` from `main`) is what a token's expiry and a
    /// wait for the end of a tap series are reckoned on.
    public static func run(command: String, arguments: [String], clock: Clock) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h"), let usage = CommandLineHelp.usage(of: command) {
            print(usage)
            return 0
        }
        do {
            return try run(command, arguments, environment: ProcessInfo.processInfo.environment, clock: clock)
        } catch let usage as Usage {
            let hint = CommandLineHelp.usage(of: command) != nil ? "buttond \(command) --help" : "buttond --help"
            writeAll(2, ("buttond: \(usage.message)\nTry '\(hint)'.\n".utf8))
            return 2
        } catch {
            return fail("\(error)")
        }
    }

    static func run(_ command: String, _ arguments: [String], environment: [String: String], clock: Clock) throws -> Int32 {
        if command == "check" { return check(arguments, environment: environment) }
        let invocation = try Invocation(arguments, environment: environment)
        try invocation.allow(Self.options[command] ?? [], for: command)
        let client = HTTPClient(base: invocation.server, token: invocation.token, caFile: invocation.caFile)
        switch command {
        case "press", "down", "up":
            let name = try invocation.oneName(for: command)
            if command == "press" { return try press(name, invocation, client, clock: clock) }
            return report(try client.request("POST", "/api/v1/buttons/\(name)/\(command)", json: "{}"))
        case "events":
            try invocation.noNames(for: command)
            return try events(invocation, client)
        case "input":
            return try input(try invocation.oneName(for: command, what: "file (or - for stdin)"), client)
        case "buttons":
            try invocation.noNames(for: command)
            return try buttons(client)
        case "health":
            try invocation.noNames(for: command)
            return health(invocation, environment: environment)
        case "config": return try config(invocation, client)
        case "deliveries": return try deliveries(invocation, client)
        case "redeliver": return try redeliver(invocation, client)
        case "tokens": return try tokens(invocation, client)
        case "token": return try token(invocation, client, clock: clock)
        default:
            throw Usage(message: "unknown command '\(command)'")
        }
    }

    /// The options each command takes beside `--server`, `--token` and `--cacert`.
    static let options: [String: Set<String>] = [
        "press": ["--hold", "--wait"], "down": [], "up": [], "input": [], "buttons": [], "health": [],
        "events": ["--follow", "--after", "--button", "--limit"], "config": ["--yes"],
        "deliveries": ["--handler", "--status", "--limit"], "redeliver": [], "tokens": [],
        "token": ["--role", "--group", "--expires"],
    ]
}
