import ButtonServer
import ButtondCLI
import FoundationEssentials
import Platform

// Parse arguments, start, wait for a signal. Everything else lives in ButtonServer.

let arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.first.flatMap { $0.hasPrefix("-") ? nil : $0 } ?? "serve"
let rest = arguments.first == command ? Array(arguments.dropFirst()) : arguments

switch arguments.first == "--version" ? "version" : command {
case "version":
    print("buttond \(BuildInfo.version)")
case "help":
    print(CommandLineHelp.text)
case "serve":
    if rest.contains("--help") || rest.contains("-h") {
        print(CommandLineHelp.text)
        exit(0)
    }
    let options: ServeOptions
    do {
        options = try ServeOptions.parse(rest, environment: ProcessInfo.processInfo.environment)
    } catch {
        writeAll(2, ("buttond: \(error.description)\nTry 'buttond --help'.\n".utf8))
        exit(2)
    }
    // SIGINT and SIGTERM stop, SIGHUP applies `--config` again and takes a renewed
    // certificate without dropping a connection. Blocked before any thread exists and taken by `sigwait` below, so one sent
    // at any moment (right on the "listening" line, or before it) is never lost.
    let signals = [SIGINT, SIGTERM, SIGHUP]
    ProcessSignals.block(signals)
    let app: ButtonServerApp
    do {
        app = try ButtonServerApp(options: options, clock: .system)
        try app.start()
    } catch {
        writeAll(2, ("buttond: \(error)\n".utf8))
        exit(1)
    }
    while true {
        if ProcessSignals.wait(signals) == SIGHUP {
            app.reload()
        } else {
            app.stop()
            exit(0)
        }
    }
default:
    exit(ClientCommand.run(command: command, arguments: rest, clock: .system))
}
