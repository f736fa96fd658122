import ButtonServer

/// `buttond --help`, and each client command's own `--help`.
public enum CommandLineHelp {
    static let common = "[--server URL] [--token T] [--cacert FILE]"

    /// One line per command: its synopsis, then what it does.
    static let commands: [(name: String, synopsis: String, does: String)] = [
        ("press", "press NAME [--hold MS] [--wait]", "a press; --hold holds for real, --wait prints the whole tap series (the delayed single-tap too)"),
        ("down", "down NAME", "a touch-down now"),
        ("up", "up NAME", "a touch-up now"),
        ("input", "input FILE|-", "posts a batch (a JSON array of inputs, from FILE or stdin) to /api/v1/input"),
        ("buttons", "buttons", "lists the buttons: id, kind, label, group"),
        ("events", "events [--follow] [--after SEQ] [--button ID] [--limit N]", "the history (newest N, or after SEQ), then with --follow every new event"),
        ("health", "health", "does /healthz answer? (--server, else the server this environment configures on 127.0.0.1)"),
        ("config", "config export [FILE] | diff FILE | apply FILE [--yes]",
         "export: the registry as a JSON file (stdout without FILE); diff: what applying FILE would change (+ create, ~ change, - delete; exit 0 nothing, 1 something, 2 error); apply: makes the registry FILE and prints the plan (asks before deleting unless --yes; without a terminal, --yes is needed)"),
        ("deliveries", "deliveries [--handler H] [--status S] [--limit N]", "the delivery log, newest first: id, status, attempts, event, source, handler, target"),
        ("redeliver", "redeliver DID", "one more attempt of delivery DID now"),
        ("tokens", "tokens", "the named tokens: name, role, groups, created, last used, expires (never a token)"),
        ("token", "token make NAME --role read|press|admin [--group G]... [--expires DURATION] | token revoke NAME",
         "make: a named token, printed this once (--expires 12h, 30d...); revoke: ends it and its streams at once"),
    ]

    /// `buttond COMMAND --help`; nil for a command with no help of its own.
    public static func usage(of command: String) -> String? {
        if command == "check" {
            return "Usage: buttond check [--data-dir DIR]\n\nIs the database sound? (SQLite's integrity check; BUTTOND_DATA_DIR, default ./data)"
        }
        guard let entry = commands.first(where: { $0.name == command }) else { return nil }
        return """
            Usage: buttond \(entry.synopsis) \(common)

            \(entry.does.prefix(1).uppercased() + entry.does.dropFirst()).
            Events print as JSON lines, keys in the server's order.
            \(environment)
            """
    }

    static let environment = """
        --server reads BUTTOND_SERVER (default http://127.0.0.1:8080), --token BUTTOND_TOKEN, --cacert BUTTOND_CACERT.
        Exit codes: 0 ok, 1 the server said no (its message on stderr), 2 usage.
        """

    public static var text: String {
        let lines = commands.map { "  buttond \($0.synopsis) \(common)" }.joined(separator: "\n")
        return """
            buttond \(BuildInfo.version): a registry of virtual buttons with a gesture engine and handlers.

            Usage:
              buttond [serve] [options]        run the server (the default command)
            \(lines)
              buttond check [--data-dir DIR]   is the database sound? (SQLite's integrity check)
              buttond version | --version
              buttond COMMAND --help           one command's options
              buttond --help

            \(ServeOptions.help)
            The client commands (http:// or https://, through libcurl; proxies from the environment as curl takes
            them) read BUTTOND_SERVER (default http://127.0.0.1:8080), BUTTOND_TOKEN and BUTTOND_CACERT.
            Exit codes: 0 ok, 1 the server said no (its message on stderr), 2 usage.
            """
    }
}
