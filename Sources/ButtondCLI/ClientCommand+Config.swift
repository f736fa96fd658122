import FoundationEssentials
import Platform
import CurlHTTP
import JSON
import MicroHTTP

/// `buttond config export|diff|apply` (SPEC §3 "Configuration as code"): one file under
/// version control applied to one server or a fleet, `kubectl diff` / `apply` style.
extension ClientCommand {
    static func config(_ invocation: Invocation, _ client: HTTPClient) throws -> Int32 {
        guard let verb = invocation.names.first else { throw Usage(message: "config takes export [FILE], diff FILE or apply FILE") }
        let files = Array(invocation.names.dropFirst())
        switch verb {
        case "export":
            guard files.count <= 1 else { throw Usage(message: "config export takes at most one FILE") }
            let reply = try client.get("/api/v1/config")
            guard reply.status == 200 else { return report(reply) }
            let text = JSONWriter.encodePretty(reply.json)
            guard let file = files.first else {
                writeAll(1, text)
                return 0
            }
            guard FileManager.default.createFile(atPath: file, contents: Data(text)) else { return fail("cannot write \(file)") }
            return 0
        case "diff", "apply":
            guard files.count == 1, let file = files.first else { throw Usage(message: "config \(verb) takes one FILE") }
            guard let data = FileManager.default.contents(atPath: file) else {
                writeAll(2, "buttond: cannot read \(file)\n".utf8)
                return 2
            }
            return verb == "diff" ? try diff(Array(data), client) : try apply(Array(data), invocation, client)
        default:
            throw Usage(message: "unknown config command '\(verb)': export, diff or apply")
        }
    }

    /// The dry-run plan, readable; 0 when nothing would change, 1 when something would, 2 when
    /// the document or the server refused (as `diff` and `kubectl diff` do).
    static func diff(_ document: [UInt8], _ client: HTTPClient) throws -> Int32 {
        let reply = try client.request("PUT", "/api/v1/config?dryRun=true", body: document)
        guard reply.status == 200, let plan = reply.json["plan"] else {
            _ = report(reply)
            return 2
        }
        let lines = planLines(plan)
        for line in lines { print(line) }
        return lines.isEmpty ? 0 : 1
    }

    /// Applies the file; anything it would delete is confirmed first on a terminal, or with
    /// `--yes` (without a terminal and without `--yes`, nothing is applied).
    static func apply(_ document: [UInt8], _ invocation: Invocation, _ client: HTTPClient) throws -> Int32 {
        if !invocation.yes {
            let dry = try client.request("PUT", "/api/v1/config?dryRun=true", body: document)
            guard dry.status == 200, let plan = dry.json["plan"] else { return report(dry) }
            let deletions = planLines(plan).filter { $0.hasPrefix("-") }
            if !deletions.isEmpty {
                for line in deletions { print(line) }
                guard isatty(0) != 0 else {
                    return fail("this would delete \(deletions.count) item(s); run on a terminal to confirm, or pass --yes")
                }
                print("Delete \(deletions.count) item(s)? [y/N] ", terminator: "")
                guard let answer = readLine()?.trimmed().lowercased(), answer == "y" || answer == "yes" else {
                    return fail("nothing applied")
                }
            }
        }
        let reply = try client.request("PUT", "/api/v1/config", body: document)
        guard reply.status == 200, let plan = reply.json["plan"] else { return report(reply) }
        let lines = planLines(plan)
        for line in lines { print(line) }
        if lines.isEmpty { print("nothing to change") }
        if case .object(let secrets)? = reply.json["secrets"] {
            for (id, secret) in secrets.sorted(by: { $0.key < $1.key }) {
                if case .string(let value) = secret { print("secret \(id) \(value)") }
            }
        }
        return 0
    }

    /// `+ button door`, `~ button lamp: longPressMs 500 → 800`, `- handler hdl_…`, kind by kind.
    static func planLines(_ plan: JSONValue) -> [String] {
        var lines: [String] = []
        for (kind, noun) in [("buttons", "button"), ("sheets", "sheet"), ("handlers", "handler")] {
            guard let changes = plan[kind] else { continue }
            func ids(_ what: String) -> [String] {
                guard case .array(let list)? = changes[what] else { return [] }
                return list.compactMap { if case .string(let id) = $0 { id } else { nil } }
            }
            for id in ids("create") { lines.append("+ \(noun) \(id)") }
            for id in ids("change") {
                var members: [String] = []
                if case .object(let details)? = changes["details"]?[id] {
                    for (member, change) in details.sorted(by: { $0.key < $1.key }) {
                        let from = change["from"].map { String(decoding: JSONWriter.encode($0), as: UTF8.self) } ?? "null"
                        let to = change["to"].map { String(decoding: JSONWriter.encode($0), as: UTF8.self) } ?? "null"
                        members.append("\(member) \(from) → \(to)")
                    }
                }
                lines.append("~ \(noun) \(id)" + (members.isEmpty ? "" : ": " + members.joined(separator: ", ")))
            }
            for id in ids("delete") { lines.append("- \(noun) \(id)") }
        }
        return lines
    }
}
