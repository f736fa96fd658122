import ButtonServer
import ButtonStore
import Buttons
import FoundationEssentials
import Platform
import Dispatch
import CurlHTTP
import MicroHTTP

/// `buttond press|down|up|events`: a client for shell scripts on the same binary.
/// Exit codes: 0 ok, 1 the server said no (its message on stderr), 2 usage.
public enum ClientCommand {
    struct Usage: Error {
        var message: String
    }

    static func fail(_ message: String) -> Int32 {
        writeAll(2, ("buttond: \(message)\n".utf8))
        return 1
    }

    public static func run(command: String, arguments: [String]) -> Int32 {
        do {
            return try run(command, arguments, environment: ProcessInfo.processInfo.environment)
        } catch let usage as Usage {
            writeAll(2, ("buttond: \(usage.message)\nTry 'buttond --help'.\n".utf8))
            return 2
        } catch {
            return fail("\(error)")
        }
    }

    /// What the command line says: where, who, and the command's own options.
    struct Invocation {
        var server: String
        var token: String?
        var caFile: String?
        var hold: Int?
        var follow = false
        var after: Int64?
        var names: [String] = []

        init(_ arguments: [String], environment: [String: String]) throws {
            server = environment["BUTTOND_SERVER"] ?? "http://127.0.0.1:8080"
            token = environment["BUTTOND_TOKEN"]
            caFile = environment["BUTTOND_CACERT"].flatMap { $0.isEmpty ? nil : $0 }
            var index = 0
            func value() throws -> String {
                index += 1
                guard index < arguments.count else { throw Usage(message: "\(arguments[index - 1]) needs a value") }
                return arguments[index]
            }
            while index < arguments.count {
                switch arguments[index] {
                case "--server": server = try value()
                case "--token": token = try value()
                case "--cacert": caFile = try value()
                case "--hold":
                    guard let ms = Int(try value()), ms >= 0 else { throw Usage(message: "--hold takes milliseconds") }
                    hold = ms
                case "--follow", "-f": follow = true
                case "--after":
                    guard let seq = Int64(try value()) else { throw Usage(message: "--after takes a sequence number") }
                    after = seq
                case let other where other.hasPrefix("-"): throw Usage(message: "unknown option '\(other)'")
                case let name: names.append(name)
                }
                index += 1
            }
            guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw Usage(message: "--server must be an http:// or https:// URL, not '\(server)'")
            }
        }
    }

    static func run(_ command: String, _ arguments: [String], environment: [String: String]) throws -> Int32 {
        let invocation = try Invocation(arguments, environment: environment)
        let client = HTTPClient(base: invocation.server, token: invocation.token, caFile: invocation.caFile)
        switch command {
        case "press", "down", "up":
            guard invocation.names.count == 1, let name = invocation.names.first else {
                throw Usage(message: "\(command) takes one button name")
            }
            if command == "press", let hold = invocation.hold { return try press(name, holdingFor: hold, client) }
            return report(try client.request("POST", "/api/v1/buttons/\(name)/\(command)", json: "{}"))
        case "events":
            guard invocation.names.isEmpty else { throw Usage(message: "events takes no names") }
            return try events(after: invocation.after, follow: invocation.follow, client)
        default:
            throw Usage(message: "unknown command '\(command)'")
        }
    }

    /// Held for real: the down now, the up `hold` ms later, so a long press fires live at its
    /// threshold (and handlers see it then, not all at once). Prints everything the press
    /// made, the timers' events (long press, repeats) included.
    static func press(_ name: String, holdingFor hold: Int, _ client: HTTPClient) throws -> Int32 {
        let down = try client.request("POST", "/api/v1/buttons/\(name)/down", json: "{}")
        guard (200..<300).contains(down.status), case .array(let started)? = down.json["events"],
            case .int(let first)? = started.first?["seq"]
        else { return report(down) }
        usleep(useconds_t(min(hold, 3_600_000)) * 1000)
        let up = try client.request("POST", "/api/v1/buttons/\(name)/up", json: "{}")
        guard (200..<300).contains(up.status), case .array(let ended)? = up.json["events"],
            case .int(let last)? = ended.last?["seq"]
        else { return report(up) }
        let history = try client.get("/api/v1/events?button=\(name)&after=\(first - 1)&limit=1000")
        guard case .array(let events)? = history.json["events"] else { return report(up) }
        for event in events {
            guard case .int(let seq)? = event["seq"], seq <= last else { continue }
            print(String(decoding: JSONWriter.encode(event), as: UTF8.self))
        }
        return 0
    }

    /// The history as JSON lines; with `follow`, then every new event as it comes.
    static func events(after: Int64?, follow: Bool, _ client: HTTPClient) throws -> Int32 {
        let query = after.map { "?after=\($0)" } ?? ""
        if !follow {
            let reply = try client.get("/api/v1/events" + query)
            guard reply.status == 200, case .array(let events)? = reply.json["events"] else { return report(reply) }
            for event in events { print(String(decoding: JSONWriter.encode(event), as: UTF8.self)) }
            return 0
        }
        let status = try client.follow("/api/v1/events/stream" + query) { message in
            guard message.event == nil, !message.comment else { return }  // registry changes are not events
            writeAll(1, ((message.data + "\n").utf8))
        }
        return status == 200 ? 0 : fail("the server answered \(status)")
    }

    /// Prints the events of a successful reply as JSON lines; the server's message otherwise.
    static func report(_ reply: HTTPClient.Reply) -> Int32 {
        guard (200..<300).contains(reply.status) else {
            let hint = reply.status == 401 ? "; give a token with --token T or BUTTOND_TOKEN" : ""
            if case .string(let message)? = reply.json["error"]?["message"] {
                return fail("\(message) (HTTP \(reply.status))\(hint)")
            }
            return fail("the server answered HTTP \(reply.status)\(hint)")
        }
        if case .array(let events)? = reply.json["events"] {
            for event in events { print(String(decoding: JSONWriter.encode(event), as: UTF8.self)) }
        }
        return 0
    }

    /// `buttond health`: 0 when the server this environment configures (`BUTTOND_PORT`, TLS
    /// by `BUTTOND_TLS_CERT` or `BUTTOND_TLS_SELF_SIGNED`) answers `/healthz` on 127.0.0.1 —
    /// the container's HEALTHCHECK, over HTTPS too (its certificate is not checked: it names
    /// the host as the world knows it).
    public static func health(environment: [String: String]) -> Int32 {
        let options: ServeOptions
        do {
            options = try ServeOptions.parse([], environment: environment)
        } catch {
            return fail(error.description)
        }
        var client = HTTPClient(base: "\(options.usesTLS ? "https" : "http")://127.0.0.1:\(options.port)", timeoutSeconds: 5)
        client.verifiesPeer = false
        do {
            let reply = try client.get("/healthz")
            guard reply.status == 200 else { return fail("/healthz answered HTTP \(reply.status)") }
            print(reply.text)
            return 0
        } catch {
            return fail(error.description)
        }
    }

    /// `buttond check [--data-dir DIR]`: the database's integrity, 0 when sound, 1 with what
    /// is wrong (run it when the server answers 503 "storage failed").
    public static func check(_ arguments: [String], environment: [String: String]) -> Int32 {
        var directory = environment["BUTTOND_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "./data"
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--data-dir", index + 1 < arguments.count {
                directory = arguments[index + 1]
                index += 2
            } else if argument.hasPrefix("--data-dir=") {
                directory = String(argument.dropFirst("--data-dir=".count))
                index += 1
            } else {
                writeAll(2, "buttond: check takes --data-dir DIR, not '\(argument)'\n".utf8)
                return 2
            }
        }
        do {
            let findings = try ButtonStore.check(directory: directory)
            if findings == ["ok"] {
                print("ok: \(directory) is sound")
                return 0
            }
            for finding in findings { print(finding) }
            writeAll(2, "buttond: \(directory) is damaged (above: what SQLite found); restore a backup of it\n".utf8)
            return 1
        } catch {
            return fail(error.description)
        }
    }
}
