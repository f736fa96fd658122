import ButtonServer
import ButtonStore
import FoundationEssentials
import Platform
import CurlHTTP

/// `health` and `check`: is the server up, is its database sound.
extension ClientCommand {
    /// `buttond health`: 0 when `/healthz` answers. With `--server` or `BUTTOND_SERVER`, that
    /// server (its certificate checked, `--cacert` taken); otherwise the server this
    /// environment configures (`BUTTOND_PORT`, TLS by `BUTTOND_TLS_CERT` or
    /// `BUTTOND_TLS_SELF_SIGNED`) on 127.0.0.1 — the container's HEALTHCHECK, over HTTPS too
    /// (its certificate is not checked there: it names the host as the world knows it).
    static func health(_ invocation: Invocation, environment: [String: String]) -> Int32 {
        var client: HTTPClient
        if invocation.serverGiven {
            client = HTTPClient(base: invocation.server, token: invocation.token, caFile: invocation.caFile, timeoutSeconds: 5)
        } else {
            let options: ServeOptions
            do {
                options = try ServeOptions.parse([], environment: environment)
            } catch {
                return fail(error.description)
            }
            client = HTTPClient(base: "\(options.usesTLS ? "https" : "http")://127.0.0.1:\(options.port)", timeoutSeconds: 5)
            client.verifiesPeer = false
        }
        do {
            let reply = try client.get("/healthz")
            guard reply.status == 200 else { return fail("\(client.base)/healthz answered HTTP \(reply.status)") }
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
