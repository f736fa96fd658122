import FoundationEssentials
import Platform
import CurlHTTP
import JSON

/// `deliveries`, `redeliver`, `tokens`, `token make|revoke`: the rest of the API an operator
/// scripts (SPEC §3).
extension ClientCommand {
    /// `deliveries [--handler H] [--status S] [--limit N]`: newest first, one line each.
    static func deliveries(_ invocation: Invocation, _ client: HTTPClient) throws -> Int32 {
        try invocation.noNames(for: "deliveries")
        var query: [String] = []
        if let handler = invocation.handler { query.append("handler=\(handler)") }
        if let status = invocation.status { query.append("status=\(status)") }
        if let limit = invocation.limit { query.append("limit=\(limit)") }
        let reply = try client.get("/api/v1/deliveries" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
        guard reply.status == 200, case .array(let rows)? = reply.json["deliveries"] else { return report(reply) }
        table(
            ["ID", "STATUS", "ATTEMPTS", "EVENT", "SOURCE", "HANDLER", "TARGET"],
            rows.map { row in
                [
                    text(row["id"]), text(row["status"]), text(row["attempts"]), text(row["type"]),
                    text(row["button"] ?? row["sheet"]), text(row["handler"]), text(row["target"]),
                ]
            })
        return 0
    }

    /// `redeliver DID`: one more attempt now; prints the delivery as the server answers it.
    static func redeliver(_ invocation: Invocation, _ client: HTTPClient) throws -> Int32 {
        let id = try invocation.oneName(for: "redeliver", what: "delivery id (dlv_…)")
        let reply = try client.request("POST", "/api/v1/deliveries/\(id)/redeliver", json: "{}")
        guard (200..<300).contains(reply.status) else { return report(reply) }
        print(reply.text)
        return 0
    }

    /// `tokens`: name, role, groups and dates; never a token.
    static func tokens(_ invocation: Invocation, _ client: HTTPClient) throws -> Int32 {
        try invocation.noNames(for: "tokens")
        let reply = try client.get("/api/v1/tokens")
        guard reply.status == 200, case .array(let rows)? = reply.json["tokens"] else { return report(reply) }
        table(
            ["NAME", "ROLE", "GROUPS", "CREATED", "LAST USED", "EXPIRES"],
            rows.map { row in
                let groups = row["groups"].map { value -> String in
                    guard case .array(let list) = value else { return "-" }
                    return list.map { text($0) }.joined(separator: ",")
                }
                return [
                    text(row["name"]), text(row["role"]), groups ?? "all", time(row["createdAt"]), time(row["lastUsedAt"]),
                    time(row["expiresAt"]),
                ]
            })
        return 0
    }

    /// `token make NAME --role R [--group G]… [--expires DURATION]` (prints the token, shown
    /// this once) and `token revoke NAME`.
    static func token(_ invocation: Invocation, _ client: HTTPClient, clock: Clock) throws -> Int32 {
        guard invocation.names.count == 2, let name = invocation.names.last else {
            throw Usage(message: "token takes make NAME --role R or revoke NAME")
        }
        switch invocation.names[0] {
        case "make":
            guard let role = invocation.role else { throw Usage(message: "token make needs --role read, press or admin") }
            var body: [String: JSONValue] = ["name": .string(name), "role": .string(role)]
            if !invocation.groups.isEmpty { body["groups"] = .array(invocation.groups.map { .string($0) }) }
            if let expires = invocation.expiresMs { body["expiresAt"] = .int(clock.now() + expires) }
            let reply = try client.request("POST", "/api/v1/tokens", body: JSONWriter.encode(.object(body)))
            guard reply.status == 201, case .string(let token)? = reply.json["token"] else { return report(reply) }
            print(token)
            return 0
        case "revoke":
            guard invocation.role == nil, invocation.groups.isEmpty, invocation.expiresMs == nil else {
                throw Usage(message: "token revoke takes only the token's NAME")
            }
            let reply = try client.request("DELETE", "/api/v1/tokens/\(name)")
            return reply.status == 204 ? 0 : report(reply)
        default:
            throw Usage(message: "unknown token command '\(invocation.names[0])': make or revoke")
        }
    }

    static func text(_ value: JSONValue?) -> String {
        switch value {
        case .string(let s)?: s
        case .int(let i)?: String(i)
        case .bool(let b)?: String(b)
        default: "-"
        }
    }

    /// Epoch milliseconds as ISO-8601 UTC; `-` for none.
    static func time(_ value: JSONValue?) -> String {
        guard case .int(let ms)? = value else { return "-" }
        return Timestamp.iso8601(milliseconds: ms)
    }

    /// Columns padded to their widest cell, the last one as it is.
    static func table(_ header: [String], _ rows: [[String]]) {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        for row in all {
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            print(cells.joined(separator: "  "))
        }
    }
}
