import FoundationEssentials

extension ClientCommand {
    /// What the command line says: where, who, and the command's own options.
    struct Invocation {
        var server: String
        /// True when `--server` or `BUTTOND_SERVER` named it (`health` probes it then).
        var serverGiven: Bool
        var token: String?
        var caFile: String?
        var hold: Int?
        var wait = false
        var follow = false
        var after: Int64?
        var button: String?
        var limit: Int?
        /// `config apply --yes`: apply deletions without asking.
        var yes = false
        var handler: String?
        var status: String?
        var role: String?
        var groups: [String] = []
        var expiresMs: Int64?
        var names: [String] = []
        /// The options given, to refuse one the command does not take.
        var given: [String] = []

        init(_ arguments: [String], environment: [String: String]) throws {
            let fromEnvironment = environment["BUTTOND_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
            server = fromEnvironment ?? "http://127.0.0.1:8080"
            serverGiven = fromEnvironment != nil
            token = environment["BUTTOND_TOKEN"]
            caFile = environment["BUTTOND_CACERT"].flatMap { $0.isEmpty ? nil : $0 }
            var index = 0
            func value() throws -> String {
                index += 1
                guard index < arguments.count else { throw Usage(message: "\(arguments[index - 1]) needs a value") }
                return arguments[index]
            }
            while index < arguments.count {
                let argument = arguments[index]
                if argument.hasPrefix("-") && argument != "-" { given.append(argument) }
                switch argument {
                case "--server":
                    server = try value()
                    serverGiven = true
                case "--token": token = try value()
                case "--cacert": caFile = try value()
                case "--hold": hold = try Self.number(try value(), argument, "milliseconds")
                case "--wait": wait = true
                case "--follow", "-f": follow = true
                case "--after": after = Int64(try Self.number(try value(), argument, "a sequence number"))
                case "--button": button = try value()
                case "--limit": limit = try Self.number(try value(), argument, "a count (1-1000)", in: 1...1000)
                case "--yes", "-y": yes = true
                case "--handler": handler = try value()
                case "--status": status = try value()
                case "--role": role = try value()
                case "--group": groups.append(try value())
                case "--expires": expiresMs = try Self.duration(try value(), argument)
                case let other where other.hasPrefix("-") && other != "-": throw Usage(message: "unknown option '\(other)'")
                case let name: names.append(name)
                }
                index += 1
            }
            guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw Usage(message: "--server must be an http:// or https:// URL, not '\(server)'")
            }
        }

        /// `90s`, `30m`, `12h`, `7d`, `2w` in milliseconds.
        static func duration(_ text: String, _ option: String) throws -> Int64 {
            let units: [Character: Int64] = ["s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000]
            guard let unit = text.last.flatMap({ units[$0] }), let count = Int64(text.dropLast()), count > 0,
                count <= Int64.max / unit / 2
            else { throw Usage(message: "\(option) takes a duration: a number and s, m, h, d or w (e.g. 12h, 30d)") }
            return count * unit
        }

        static func number(_ text: String, _ option: String, _ what: String, in range: ClosedRange<Int> = 0...Int.max) throws -> Int {
            guard let value = Int(text), range.contains(value) else { throw Usage(message: "\(option) takes \(what)") }
            return value
        }

        /// Refuses an option another command takes but `command` does not.
        func allow(_ options: Set<String>, for command: String) throws {
            let common: Set<String> = ["--server", "--token", "--cacert"]
            let aliases = ["-f": "--follow", "-y": "--yes"]
            if let other = given.first(where: { !common.contains($0) && !options.contains(aliases[$0] ?? $0) }) {
                throw Usage(message: "\(command) does not take \(other)")
            }
        }

        func oneName(for command: String, what: String = "button name") throws -> String {
            guard names.count == 1, let name = names.first else { throw Usage(message: "\(command) takes one \(what)") }
            return name
        }

        func noNames(for command: String) throws {
            guard names.isEmpty else { throw Usage(message: "\(command) takes no names (given: \(names.joined(separator: " ")))") }
        }
    }
}
