import CurlHTTP
import Foundation
import Testing

import TestSupport

/// docs/operations.md cannot drift from the binary: every flag `buttond serve --help` prints
/// is a row of its flag table, and every metric the server exports is in its metrics list.
@Suite("The operations page matches the binary")
struct DocsDriftTests {
    static var page: String {
        (try? String(contentsOfFile: ServerProcess.repositoryRoot + "/docs/operations.md", encoding: .utf8)) ?? ""
    }

    /// The flags of `serve --help`'s options section, each at the start of its line.
    static func serveFlags(_ help: String) -> [String] {
        guard let start = help.range(of: "Options of `buttond serve`") else { return [] }
        return help[start.upperBound...].split(separator: "\n").compactMap { line in
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("--") else { return nil }
            return String(trimmed.prefix { !$0.isWhitespace })
        }
    }

    /// The flags named in the first column of the page's flag table (`--tls-cert`, `--tls-key` share a row).
    static func tableFlags(_ page: String) -> Set<String> {
        var flags: Set<String> = []
        for line in page.split(separator: "\n") where line.hasPrefix("| `--") {
            let first = line.split(separator: "|").first ?? ""
            for part in first.split(separator: "`") where part.hasPrefix("--") {
                flags.insert(String(part.prefix { !$0.isWhitespace }))
            }
        }
        return flags
    }

    @Test func everyServeFlagIsInTheTable() throws {
        let (status, help, _) = try runButtond(["serve", "--help"])
        #expect(status == 0)
        let flags = Self.serveFlags(help)
        #expect(flags.count > 40, "\(flags)")
        let documented = Self.tableFlags(Self.page)
        let missing = flags.filter { !documented.contains($0) }
        #expect(missing.isEmpty, "flags of serve --help missing from docs/operations.md's table: \(missing)")
        // The check itself can fail: a table without one row misses that flag.
        let withoutHost = Self.page.split(separator: "\n").filter { !$0.hasPrefix("| `--host`") }.joined(separator: "\n")
        #expect(!Self.tableFlags(withoutHost).contains("--host"))
    }

    /// With MQTT (a broker that is not there) and OSC on, so their metrics are exported too.
    @Test func everyMetricIsListed() throws {
        let dir = NSTemporaryDirectory() + "buttond-metrics-doc-\(UUID().uuidString)"
        let server = try ServerProcess(dataDir: dir, arguments: ["--mqtt-url", "mqtt://127.0.0.1:9", "--osc-port", "0"])
        defer { server.stop() }
        let text = try server.client.get("/metrics").text
        let names = Set(text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("# TYPE ") else { return nil }
            return line.split(separator: " ").dropFirst(2).first.map(String.init)
        })
        #expect(names.contains("buttond_mqtt_connected") && names.contains("buttond_osc_messages_in_total"), "\(names.sorted())")
        let page = Self.page
        let missing = names.filter { !page.contains("`\($0)`") }.sorted()
        #expect(missing.isEmpty, "metrics missing from docs/operations.md: \(missing)")
    }
}
