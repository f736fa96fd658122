import ButtonServer

/// `buttond --help`.
public enum CommandLineHelp {
    public static var text: String {
        """
        buttond \(BuildInfo.version): a registry of virtual buttons with a gesture engine and handlers.

        Usage:
          buttond [serve] [options]        run the server (the default command)
          buttond press NAME [--hold MS] [--server URL] [--token T] [--cacert FILE]
          buttond down NAME | up NAME [--server URL] [--token T]
          buttond events [--follow] [--after SEQ] [--server URL] [--token T]
          buttond check [--data-dir DIR]   is the database sound? (SQLite's integrity check)
          buttond health                   does the server this environment configures answer /healthz?
          buttond version | --version
          buttond --help

        \(ServeOptions.help)
        The client commands (http:// or https://, through libcurl; proxies from the environment as curl takes
        them) read BUTTOND_SERVER (default http://127.0.0.1:8080), BUTTOND_TOKEN and BUTTOND_CACERT.
        Exit codes: 0 ok, 1 the server said no (its message on stderr), 2 usage.
        """
    }
}
