import ButtonServer
import ButtondCLI
import FoundationEssentials
import Dispatch
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
    let app: ButtonServerApp
    do {
        app = try ButtonServerApp(options: options)
    } catch {
        writeAll(2, ("buttond: \(error)\n".utf8))
        exit(1)
    }
    // The signal sources are in place before `start` says "listening": a SIGTERM sent the
    // moment a supervisor (or a test) reads that line was lost while they were being made.
    // Their handlers run on the main queue, so not before `start` has returned.
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    let signals = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .main) }
    for source in signals {
        source.setEventHandler {
            app.stop()
            exit(0)
        }
        source.resume()
    }
    // SIGHUP: take a renewed certificate without dropping a connection.
    signal(SIGHUP, SIG_IGN)
    let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .main)
    hangup.setEventHandler { _ = app.reloadTLS() }
    hangup.resume()
    do {
        try app.start()
    } catch {
        writeAll(2, ("buttond: \(error)\n".utf8))
        exit(1)
    }
    dispatchMain()
default:
    exit(ClientCommand.run(command: command, arguments: rest))
}
