import ButtonEngine
import Buttons
import Delivery
import Foundation
import Handlers
import JSON
import Testing

/// Handler validation (SPEC §5, and §10's OSC handlers) without a server: every rule as a JSON
/// body and the refusal it gets (status, the field named in `details`, words of the message),
/// and what an accepted body becomes (defaults filled in).
@Suite struct HandlerValidationTests {
    // MARK: - Fixtures

    /// Where webhooks and OSC messages may go, as the server would build it.
    enum Rules: Sendable {
        case open
        case denyPrivate
        /// The server listens on 127.0.0.1 at this port.
        case loopbackListener(port: Int)
        /// The server listens on 0.0.0.0:8080, and this machine has 192.168.1.5.
        case wildcardV4
        /// The server listens on [::]:8080 (dual stack).
        case wildcardV6

        var destinations: DestinationRules {
            switch self {
            case .open: DestinationRules()
            case .denyPrivate: DestinationRules(denyPrivate: true)
            case .loopbackListener(let port):
                DestinationRules(listeners: [DestinationRules.listener(host: "127.0.0.1", port: port)!])
            case .wildcardV4:
                DestinationRules(listeners: [DestinationRules.listener(host: "0.0.0.0", port: 8080)!], localAddresses: [[192, 168, 1, 5]])
            case .wildcardV6:
                DestinationRules(listeners: [DestinationRules.listener(host: "::", port: 8080)!])
            }
        }
    }

    /// A scripts directory: `hello.sh` (0755), `notes.txt` (0644), `bin/` (a directory),
    /// `link.sh` (a symlink to hello.sh).
    final class ScriptsDir {
        let path: String

        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("scripts-\(UUID().uuidString)").path
            let files = FileManager.default
            try files.createDirectory(atPath: path + "/bin", withIntermediateDirectories: true)
            let script = Data("#!/bin/sh\nexit 0\n".utf8)
            #expect(files.createFile(atPath: path + "/hello.sh", contents: script, attributes: [.posixPermissions: 0o755]))
            #expect(files.createFile(atPath: path + "/notes.txt", contents: script, attributes: [.posixPermissions: 0o644]))
            try files.createSymbolicLink(atPath: path + "/link.sh", withDestinationPath: path + "/hello.sh")
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static let door = Source.button("door")
    static let menu = Source.sheet("menu")
    static let menuOptions = ["go", "stop"]

    static func json(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    static func context(_ rules: Rules, scripts: String?, owner: Source, envelope: Bool = false) -> Handler.Context {
        Handler.Context(
            scriptsDir: scripts, destinations: rules.destinations, sheetOptions: owner.sheet == nil ? nil : menuOptions, envelope: envelope)
    }

    /// The error `make` throws, or nil when it accepts.
    static func refusal(_ make: () throws(ButtonsError) -> Void) -> ButtonsError? {
        do {
            try make()
            return nil
        } catch {
            return error
        }
    }

    static func create(
        _ body: String, owner: Source = door, rules: Rules = .open, scripts: String? = nil, envelope: Bool = false
    ) throws -> Handler {
        try Handler.create(from: try json(body), owner: owner, context: context(rules, scripts: scripts, owner: owner, envelope: envelope))
    }

    /// A refused body: what it is refused with.
    struct Refused: Sendable, CustomTestStringConvertible {
        let name: String
        let body: String
        var owner: Source
        var rules: Rules
        /// Whether the context has a scripts directory (a `ScriptsDir`).
        var scripts: Bool
        var status: Int
        var field: String?
        /// Words the message must hold.
        var says: [String]
        var testDescription: String { name }

        /// A script handler with `members`, with a scripts directory, refused at `script.FIELD`.
        static func script(_ name: String, _ members: String, status: Int = 422, field: String, says: String...) -> Refused {
            Refused(
                name, HandlerValidationTests.script(members), owner: door, rules: .open, scripts: true, status: status,
                field: "script." + field, saying: says)
        }

        init(
            _ name: String, _ body: String, owner: Source = door, rules: Rules = .open, scripts: Bool = false, status: Int = 422,
            field: String?, says: String...
        ) {
            self.init(name, body, owner: owner, rules: rules, scripts: scripts, status: status, field: field, saying: says)
        }

        init(
            _ name: String, _ body: String, owner: Source, rules: Rules, scripts: Bool, status: Int, field: String?, saying says: [String]
        ) {
            self.name = name
            self.body = body
            self.owner = owner
            self.rules = rules
            self.scripts = scripts
            self.status = status
            self.field = field
            self.says = says
        }
    }

    static func check(_ error: ButtonsError?, against refused: Refused) throws {
        let error = try #require(error, "accepted: \(refused.body.prefix(300))")
        #expect(ErrorStatus.of(error.kind) == refused.status, "\(error.message)")
        #expect(error.code == (refused.status == 400 ? "bad_request" : "invalid_value"))
        #expect(error.details["field"] == refused.field.map { .string($0) }, "\(error.message)")
        #expect(!error.message.isEmpty)
        for words in refused.says {
            #expect(error.message.contains(words), "'\(error.message)' does not say '\(words)'")
        }
    }

    func refuse(_ refused: Refused) throws {
        let dir = try refused.scripts ? ScriptsDir() : nil
        let context = Self.context(refused.rules, scripts: dir?.path, owner: refused.owner)
        let body = try Self.json(refused.body)
        try Self.check(Self.refusal { () throws(ButtonsError) in _ = try Handler.create(from: body, owner: refused.owner, context: context) }, against: refused)
    }

    /// `{"on": ["tap"], "webhook": {MEMBERS}}`.
    static func hook(_ members: String) -> String { #"{"on": ["tap"], "webhook": {"# + members + "}}" }
    static func hookTo(_ url: String) -> String { hook(#""url": ""# + url + #"""#) }
    static func script(_ members: String) -> String { #"{"on": ["tap"], "script": {"# + members + "}}" }
    static func osc(_ members: String) -> String { #"{"on": ["tap"], "osc": {"# + members + "}}" }
    static func oscTo(_ url: String) -> String { osc(#""url": ""# + url + #"", "address": "/go""#) }
    static func oscArgs(_ args: String) -> String { osc(#""url": "osc.udp://127.0.0.1:53000", "address": "/go", "args": "# + args) }

    static let url = #""url": "http://127.0.0.1:9/hook""#

    // MARK: - What every handler has: on, option, one action, no unknown members

    static let common: [Refused] = [
        Refused("on missing", #"{"webhook": {"url": "http://127.0.0.1:9/"}}"#, field: "on", says: "required"),
        Refused("on empty", #"{"on": [], "webhook": {"url": "http://127.0.0.1:9/"}}"#, field: "on", says: "at least one"),
        Refused("on not a list", #"{"on": "tap", "webhook": {"url": "http://127.0.0.1:9/"}}"#, status: 400, field: "on", says: "array"),
        Refused(
            "on: an unknown event type", #"{"on": ["tap", "tapp"], "webhook": {"url": "http://127.0.0.1:9/"}}"#, field: "on[1]",
            says: "'tapp'", "long-press"),
        Refused(
            "on: not a string", #"{"on": ["tap", 3], "webhook": {"url": "http://127.0.0.1:9/"}}"#, status: 400, field: "on[1]",
            says: "string"),
        Refused(
            "on: a sheet's event on a button", #"{"on": ["select"], "webhook": {"url": "http://127.0.0.1:9/"}}"#, field: "on[0]",
            says: "'select'", "button"),
        Refused(
            "on: a button's event on a sheet", #"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/"}}"#, owner: menu,
            field: "on[0]", says: "'tap'", "sheet", "select"),
        Refused(
            "option on a button", #"{"on": ["tap"], "option": "go", "webhook": {"url": "http://127.0.0.1:9/"}}"#, field: "option",
            says: "only for sheet"),
        Refused(
            "option the sheet does not have", #"{"on": ["select"], "option": "pause", "webhook": {"url": "http://127.0.0.1:9/"}}"#,
            owner: menu, field: "option", says: "'pause'"),
        Refused(
            "option not a name", #"{"on": ["select"], "option": "Go!", "webhook": {"url": "http://127.0.0.1:9/"}}"#, owner: menu,
            field: "option", says: "must match"),
        Refused(
            "option not a string", #"{"on": ["select"], "option": 1, "webhook": {"url": "http://127.0.0.1:9/"}}"#, owner: menu,
            status: 400, field: "option", says: "string"),
        Refused("no action", #"{"on": ["tap"]}"#, field: "webhook", says: "webhook", "script", "osc"),
        Refused(
            "webhook and script", #"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/"}, "script": {"name": "hello.sh"}}"#,
            field: "script", says: "not several"),
        Refused(
            "webhook and osc",
            #"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/"}, "osc": {"url": "osc.udp://127.0.0.1:9000", "address": "/a"}}"#,
            field: "osc", says: "not several"),
        Refused(
            "script and osc",
            #"{"on": ["tap"], "script": {"name": "hello.sh"}, "osc": {"url": "osc.udp://127.0.0.1:9000", "address": "/a"}}"#,
            field: "osc", says: "not several"),
        Refused(
            "an unknown member", #"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/"}, "retries": 3}"#, field: "retries",
            says: "unknown field 'retries'"),
        Refused(
            "an id outside the stored form", #"{"id": "hdl_x", "on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/"}}"#,
            field: "id", says: "unknown field 'id'"),
        Refused(
            "enabled not a boolean", #"{"on": ["tap"], "enabled": "yes", "webhook": {"url": "http://127.0.0.1:9/"}}"#, status: 400,
            field: "enabled", says: "true or false"),
        Refused(
            "ordered not a boolean", #"{"on": ["tap"], "ordered": 0, "webhook": {"url": "http://127.0.0.1:9/"}}"#, status: 400,
            field: "ordered", says: "true or false"),
        Refused("the body not an object", #"["tap"]"#, status: 400, field: nil, says: "JSON object"),
        Refused(
            "webhook not an object", #"{"on": ["tap"], "webhook": "http://127.0.0.1:9/"}"#, status: 400, field: "webhook",
            says: "JSON object"),
    ]

    @Test(arguments: common)
    func aHandlerIsRefused(_ refused: Refused) throws { try refuse(refused) }

    // MARK: - Webhooks

    static let webhookRules: [Refused] = [
        Refused("url missing", hook(#""timeoutMs": 2000"#), field: "webhook.url", says: "required"),
        Refused("url not a string", hook(#""url": 80"#), status: 400, field: "webhook.url", says: "string"),
        Refused("ftp", hookTo("ftp://example.com/x"), field: "webhook.url", says: "http or https", "ftp"),
        Refused("ws", hookTo("ws://example.com/x"), field: "webhook.url", says: "http or https", "ws"),
        Refused("file", hookTo("file:///etc/passwd"), field: "webhook.url", says: "absolute"),
        Refused("no scheme", hookTo("example.com/hook"), field: "webhook.url", says: "absolute"),
        Refused("a space", hookTo("http://example.com/a b"), field: "webhook.url", says: "absolute"),
        Refused("user and password", hookTo("http://user:secret@example.com/x"), field: "webhook.url", says: "user or password"),
        Refused("user only", hookTo("https://token@example.com/x"), field: "webhook.url", says: "user or password"),
        Refused(
            "2049 characters", hookTo("http://example.com/" + String(repeating: "a", count: 2049 - 19)), field: "webhook.url",
            says: "2048"),
        Refused("method unknown", hook(url + #", "method": "FETCH""#), field: "webhook.method", says: "POST, PUT, PATCH, GET, DELETE"),
        Refused("method not a string", hook(url + #", "method": 1"#), status: 400, field: "webhook.method", says: "string"),
        Refused("GET with a body", hook(url + #", "method": "get", "body": {"a": 1}"#), field: "webhook.body", says: "GET"),
        Refused(
            "body nested 17 deep", hook(url + #", "body": "# + String(repeating: "[", count: 17) + String(repeating: "]", count: 17)),
            field: "webhook.body", says: "deeper than 16"),
        Refused(
            "body over 16 KiB", hook(url + #", "body": {"x": ""# + String(repeating: "a", count: 16_400) + #""}"#),
            field: "webhook.body", says: "16384 bytes"),
        Refused("header host", hook(url + #", "headers": {"Host": "example.com"}"#), field: "webhook.headers.Host", says: "set by buttond"),
        Refused(
            "header content-length", hook(url + #", "headers": {"content-length": "3"}"#), field: "webhook.headers.content-length",
            says: "set by buttond"),
        Refused(
            "header transfer-encoding", hook(url + #", "headers": {"Transfer-Encoding": "chunked"}"#),
            field: "webhook.headers.Transfer-Encoding", says: "set by buttond"),
        Refused(
            "header connection", hook(url + #", "headers": {"CONNECTION": "close"}"#), field: "webhook.headers.CONNECTION",
            says: "set by buttond"),
        Refused(
            "header webhook-id", hook(url + #", "headers": {"webhook-id": "x"}"#), field: "webhook.headers.webhook-id",
            says: "set by buttond"),
        Refused(
            "header webhook-signature", hook(url + #", "headers": {"Webhook-Signature": "v1,x"}"#),
            field: "webhook.headers.Webhook-Signature", says: "set by buttond"),
        Refused(
            "header webhook-anything", hook(url + #", "headers": {"webhook-mine": "x"}"#), field: "webhook.headers.webhook-mine",
            says: "set by buttond"),
        Refused(
            "header value with CR LF", hook(url + #", "headers": {"X-A": "a\r\nX-Evil: 1"}"#), field: "webhook.headers.X-A",
            says: "CR, LF"),
        Refused("header value with LF", hook(url + #", "headers": {"X-A": "a\nb"}"#), field: "webhook.headers.X-A", says: "CR, LF"),
        Refused("header value with CR", hook(url + #", "headers": {"X-A": "a\rb"}"#), field: "webhook.headers.X-A", says: "CR, LF"),
        Refused("header value with NUL", hook(url + #", "headers": {"X-A": "a\u0000b"}"#), field: "webhook.headers.X-A", says: "NUL"),
        Refused(
            "header value not a string", hook(url + #", "headers": {"X-N": 5}"#), status: 400, field: "webhook.headers.X-N",
            says: "string"),
        Refused(
            "header name with a space", hook(url + #", "headers": {"Bad Name": "x"}"#), field: "webhook.headers.Bad Name",
            says: "not valid"),
        Refused("header name with a colon", hook(url + #", "headers": {"X:Y": "x"}"#), field: "webhook.headers.X:Y", says: "not valid"),
        Refused("header name empty", hook(url + #", "headers": {"": "x"}"#), field: "webhook.headers.", says: "not valid"),
        Refused(
            "33 headers",
            hook(url + #", "headers": {"# + (0..<33).map { #""X-H\#($0)": "v""# }.joined(separator: ", ") + "}"),
            field: "webhook.headers", says: "32"),
        Refused("headers not an object", hook(url + #", "headers": ["X-A: b"]"#), status: 400, field: "webhook.headers", says: "JSON object"),
        Refused("timeoutMs 999", hook(url + #", "timeoutMs": 999"#), field: "webhook.timeoutMs", says: "between 1000 and 30000", "999"),
        Refused("timeoutMs 30001", hook(url + #", "timeoutMs": 30001"#), field: "webhook.timeoutMs", says: "between 1000 and 30000"),
        Refused("timeoutMs a fraction", hook(url + #", "timeoutMs": 1500.5"#), field: "webhook.timeoutMs", says: "whole number"),
        Refused("timeoutMs a string", hook(url + #", "timeoutMs": "10s""#), status: 400, field: "webhook.timeoutMs", says: "integer"),
        Refused("maxAttempts 0", hook(url + #", "maxAttempts": 0"#), field: "webhook.maxAttempts", says: "between 1 and 20"),
        Refused("maxAttempts 21", hook(url + #", "maxAttempts": 21"#), field: "webhook.maxAttempts", says: "between 1 and 20"),
        Refused("expireAfterMs 999", hook(url + #", "expireAfterMs": 999"#), field: "webhook.expireAfterMs", says: "between 1000"),
        Refused(
            "expireAfterMs over a week", hook(url + #", "expireAfterMs": 604800001"#), field: "webhook.expireAfterMs",
            says: "604800000"),
        Refused("an unknown member", hook(url + #", "retries": 3"#), field: "webhook.retries", says: "unknown field"),
        Refused("a secret of the client's", hook(url + #", "secret": "whsec_x""#), field: "webhook.secret", says: "unknown field"),
    ]

    @Test(arguments: webhookRules)
    func aWebhookIsRefused(_ refused: Refused) throws { try refuse(refused) }

    // MARK: - Where a webhook may go

    static func destination(_ url: String, _ rules: Rules, _ reason: String) -> Refused {
        Refused("\(url) (\(rules))", hookTo(url), rules: rules, field: "webhook.url", says: reason)
    }

    static let webhookDestinations: [Refused] = [
        destination("http://169.254.169.254/latest/meta-data", .open, "link-local"),
        destination("http://[fe80::1]:8080/x", .open, "link-local"),
        destination("http://[::ffff:169.254.1.1]/x", .open, "link-local"),
        destination("http://224.0.0.251/x", .open, "multicast"),
        destination("http://[ff02::1]/x", .open, "multicast"),
        destination("http://0.0.0.0:8080/x", .open, "unspecified"),
        destination("http://0/x", .open, "unspecified"),
        destination("http://[::]/x", .open, "unspecified"),
        destination("http://255.255.255.255/x", .open, "broadcast"),
        // A loop to the server's own listener, in every spelling curl would connect to.
        destination("http://127.0.0.1:8080/x", .loopbackListener(port: 8080), "buttond's own address"),
        destination("http://127.1:8080/x", .loopbackListener(port: 8080), "buttond's own address"),
        destination("http://2130706433:8080/x", .loopbackListener(port: 8080), "buttond's own address"),
        destination("http://0x7f.0.0.1:8080/x", .loopbackListener(port: 8080), "buttond's own address"),
        destination("http://0177.0.0.1:8080/x", .loopbackListener(port: 8080), "buttond's own address"),
        destination("http://[::ffff:127.0.0.1]:8080/x", .loopbackListener(port: 8080), "buttond's own address"),
        destination("http://[::ffff:7f00:1]:8080/x", .loopbackListener(port: 8080), "buttond's own address"),
        destination("http://127.0.0.1/x", .loopbackListener(port: 80), "buttond's own address"),
        destination("https://127.0.0.1/x", .loopbackListener(port: 443), "buttond's own address"),
        destination("http://192.168.1.5:8080/x", .wildcardV4, "buttond's own address"),
        destination("http://127.0.0.2:8080/x", .wildcardV4, "buttond's own address"),
        destination("http://127.0.0.1:8080/x", .wildcardV6, "buttond's own address"),
        destination("http://[::1]:8080/x", .wildcardV6, "buttond's own address"),
        // --webhook-deny-private
        destination("http://127.0.0.1/x", .denyPrivate, "loopback"),
        destination("http://127.1/x", .denyPrivate, "loopback"),
        destination("http://[::1]/x", .denyPrivate, "loopback"),
        destination("http://10.1.2.3/x", .denyPrivate, "private"),
        destination("http://172.16.0.1/x", .denyPrivate, "private"),
        destination("http://172.31.255.255/x", .denyPrivate, "private"),
        destination("http://192.168.1.10:8123/api", .denyPrivate, "private"),
        destination("http://[fd12::1]/x", .denyPrivate, "private"),
        destination("http://[::ffff:10.0.0.1]/x", .denyPrivate, "private"),
    ]

    @Test(arguments: webhookDestinations)
    func aWebhookDestinationIsRefused(_ refused: Refused) throws { try refuse(refused) }

    struct Allowed: Sendable, CustomTestStringConvertible {
        let url: String
        let rules: Rules
        var testDescription: String { "\(url) (\(rules))" }
    }

    static let allowed: [Allowed] = [
        Allowed(url: "http://10.0.0.1/x", rules: .open),
        Allowed(url: "http://127.0.0.1:8080/x", rules: .open),
        Allowed(url: "http://[::1]:9/x", rules: .open),
        Allowed(url: "http://127.0.0.1:8081/x", rules: .loopbackListener(port: 8080)),
        Allowed(url: "https://127.0.0.1:8080/x", rules: .loopbackListener(port: 443)),
        Allowed(url: "http://192.168.1.5:8080/x", rules: .loopbackListener(port: 8080)),
        Allowed(url: "http://192.168.1.6:8080/x", rules: .wildcardV4),
        // A name is checked after resolution, on every attempt.
        Allowed(url: "http://localhost:8080/x", rules: .loopbackListener(port: 8080)),
        Allowed(url: "http://homeassistant.local:8123/api", rules: .denyPrivate),
        Allowed(url: "http://172.32.0.1/x", rules: .denyPrivate),
        Allowed(url: "http://8.8.8.8/x", rules: .denyPrivate),
        Allowed(url: "https://[2001:db8::1]/x", rules: .denyPrivate),
    ]

    @Test(arguments: allowed)
    func allowedDestinations(_ allowed: Allowed) throws {
        let handler = try Self.create(Self.hookTo(allowed.url), rules: allowed.rules)
        guard case .webhook(let hook) = handler.action else { Issue.record("not a webhook: \(handler.action)"); return }
        #expect(hook.url == allowed.url)
    }

    // MARK: - Scripts

    static let scriptRules: [Refused] = [
        Refused(
            "no scripts directory", script(#""name": "hello.sh""#), field: "script", says: "--scripts-dir DIR", "BUTTOND_SCRIPTS_DIR"),
        .script("name missing", #""args": []"#, field: "name", says: "required"),
        .script("name not a string", #""name": 1"#, status: 400, field: "name", says: "string"),
        .script("a parent", #""name": "../hello.sh""#, field: "name", says: "no / or .."),
        .script("dot dot", #""name": "..""#, field: "name", says: "no / or .."),
        .script("a subdirectory", #""name": "bin/hello.sh""#, field: "name", says: "no / or .."),
        .script("an absolute path", #""name": "/bin/sh""#, field: "name", says: "no / or .."),
        .script("a hidden file", #""name": ".hello.sh""#, field: "name", says: "no / or .."),
        .script("empty", #""name": """#, field: "name", says: "no / or .."),
        .script("a space", #""name": "hello sh""#, field: "name", says: "no / or .."),
        .script("missing", #""name": "missing.sh""#, field: "name", says: "no regular file 'missing.sh'"),
        .script("a directory", #""name": "bin""#, field: "name", says: "no regular file 'bin'"),
        .script("a symlink", #""name": "link.sh""#, field: "name", says: "no regular file 'link.sh'"),
        .script("not executable", #""name": "notes.txt""#, field: "name", says: "not executable"),
        .script("args not a list", #""name": "hello.sh", "args": "{button}""#, status: 400, field: "args", says: "array"),
        .script("an arg not a string", #""name": "hello.sh", "args": ["a", 1]"#, status: 400, field: "args[1]", says: "string"),
        .script("33 args", #""name": "hello.sh", "args": ["# + Array(repeating: #""a""#, count: 33).joined(separator: ", ") + "]", field: "args", says: "32"),
        .script("an arg over 1024 bytes", #""name": "hello.sh", "args": [""# + String(repeating: "é", count: 513) + #""]"#, field: "args[0]", says: "1024 bytes"),
        .script("an arg with NUL", #""name": "hello.sh", "args": ["a\u0000b"]"#, field: "args[0]", says: "NUL"),
        .script("timeoutMs over 300 s", #""name": "hello.sh", "timeoutMs": 300001"#, field: "timeoutMs", says: "between 1000 and 300000"),
        .script("timeoutMs under 1 s", #""name": "hello.sh", "timeoutMs": 999"#, field: "timeoutMs", says: "between 1000 and 300000"),
        .script("maxAttempts 0", #""name": "hello.sh", "maxAttempts": 0"#, field: "maxAttempts", says: "between 1 and 20"),
        .script("expireAfterMs 10", #""name": "hello.sh", "expireAfterMs": 10"#, field: "expireAfterMs", says: "between 1000"),
        .script("an unknown member", #""name": "hello.sh", "env": {"A": "b"}"#, field: "env", says: "unknown field"),
    ]

    @Test(arguments: scriptRules)
    func aScriptIsRefused(_ refused: Refused) throws { try refuse(refused) }

    // MARK: - OSC out (SPEC §10)

    static let oscRules: [Refused] = [
        Refused("url missing", osc(#""address": "/go""#), field: "osc.url", says: "required"),
        Refused("address missing", osc(#""url": "osc.udp://127.0.0.1:9000""#), field: "osc.address", says: "required"),
        Refused("udp://", oscTo("udp://127.0.0.1:9000"), field: "osc.url", says: "osc.udp://HOST:PORT"),
        Refused("osc.http://", oscTo("osc.http://127.0.0.1:9000"), field: "osc.url", says: "osc.tcp://HOST:PORT"),
        Refused("http://", oscTo("http://127.0.0.1:9000"), field: "osc.url", says: "osc.udp://"),
        Refused("no port", oscTo("osc.udp://127.0.0.1"), field: "osc.url", says: "osc.udp://"),
        Refused("port 0", oscTo("osc.udp://127.0.0.1:0"), field: "osc.url", says: "osc.udp://"),
        Refused("port 70000", oscTo("osc.tcp://127.0.0.1:70000"), field: "osc.url", says: "osc.udp://"),
        Refused("a user", oscTo("osc.udp://me@127.0.0.1:9000"), field: "osc.url", says: "no user"),
        Refused("a path", oscTo("osc.udp://127.0.0.1:9000/cue"), field: "osc.url", says: "no path"),
        Refused(
            "address without /", osc(#""url": "osc.udp://127.0.0.1:9000", "address": "cue/1/start""#), field: "osc.address",
            says: "start with /"),
        Refused("address empty", osc(#""url": "osc.udp://127.0.0.1:9000", "address": """#), field: "osc.address", says: "start with /"),
        Refused(
            "address with a space", osc(#""url": "osc.udp://127.0.0.1:9000", "address": "/cue 1""#), field: "osc.address",
            says: "spaces"),
        Refused("address with #", osc(#""url": "osc.udp://127.0.0.1:9000", "address": "/cue#1""#), field: "osc.address", says: "#"),
        Refused(
            "slip over UDP", osc(#""url": "osc.udp://127.0.0.1:9000", "address": "/go", "slip": true"#), field: "osc.slip",
            says: "osc.tcp://"),
        Refused(
            "slip not a boolean", osc(#""url": "osc.tcp://127.0.0.1:3037", "address": "/go", "slip": "yes""#), status: 400,
            field: "osc.slip", says: "true or false"),
        Refused("args not a list", oscArgs(#"{"type": "i", "value": 1}"#), status: 400, field: "osc.args", says: "array"),
        Refused("an arg not an object", oscArgs("[1]"), status: 400, field: "osc.args[0]", says: "JSON object"),
        Refused("type x", oscArgs(#"[{"type": "x", "value": 1}]"#), field: "osc.args[0].type", says: "i, h, f, d, s, T, F, N"),
        Refused("type missing", oscArgs(#"[{"value": 1}]"#), field: "osc.args[0].type", says: "i, h, f, d, s, T, F, N"),
        Refused("type of two letters", oscArgs(#"[{"type": "ii", "value": 1}]"#), field: "osc.args[0].type", says: "longer than 1"),
        Refused("i over 32 bits", oscArgs(#"[{"type": "i", "value": 2147483648}]"#), field: "osc.args[0].value", says: "32-bit"),
        Refused("i a fraction", oscArgs(#"[{"type": "i", "value": 1.5}]"#), field: "osc.args[0].value", says: "32-bit"),
        Refused(
            "i an unknown placeholder", oscArgs(#"[{"type": "s", "value": "x"}, {"type": "i", "value": "{bogus}"}]"#),
            field: "osc.args[1].value", says: "placeholder"),
        Refused(
            "i a placeholder among text", oscArgs(#"[{"type": "i", "value": "cue {face}"}]"#), field: "osc.args[0].value",
            says: "exactly one placeholder"),
        Refused("h a fraction", oscArgs(#"[{"type": "h", "value": 2.5}]"#), field: "osc.args[0].value", says: "an integer"),
        Refused("f a word", oscArgs(#"[{"type": "f", "value": "loud"}]"#), field: "osc.args[0].value", says: "a number"),
        Refused("d a boolean", oscArgs(#"[{"type": "d", "value": true}]"#), field: "osc.args[0].value", says: "a number"),
        Refused("s a number", oscArgs(#"[{"type": "s", "value": 5}]"#), field: "osc.args[0].value", says: "a string"),
        Refused(
            "s over 1024 bytes", oscArgs(#"[{"type": "s", "value": ""# + String(repeating: "a", count: 1025) + #""}]"#),
            field: "osc.args[0].value", says: "1024 bytes"),
        Refused("s missing", oscArgs(#"[{"type": "s"}]"#), field: "osc.args[0].value", says: "a string"),
        Refused("T with a value", oscArgs(#"[{"type": "T", "value": true}]"#), field: "osc.args[0].value", says: "carries no value"),
        Refused("N with a value", oscArgs(#"[{"type": "N", "value": 0}]"#), field: "osc.args[0].value", says: "carries no value"),
        Refused("an arg's unknown member", oscArgs(#"[{"type": "i", "value": 1, "name": "x"}]"#), field: "osc.args[0].name", says: "unknown field"),
        Refused(
            "33 args", oscArgs("[" + Array(repeating: #"{"type": "N"}"#, count: 33).joined(separator: ", ") + "]"), field: "osc.args",
            says: "32"),
        Refused(
            "maxAttempts 0", osc(#""url": "osc.udp://127.0.0.1:9000", "address": "/go", "maxAttempts": 0"#), field: "osc.maxAttempts",
            says: "between 1 and 20"),
        Refused(
            "expireAfterMs 5", osc(#""url": "osc.udp://127.0.0.1:9000", "address": "/go", "expireAfterMs": 5"#),
            field: "osc.expireAfterMs", says: "between 1000"),
        Refused(
            "an unknown member", osc(#""url": "osc.udp://127.0.0.1:9000", "address": "/go", "timeoutMs": 1000"#),
            field: "osc.timeoutMs", says: "unknown field"),
        // The destination rules of webhooks.
        Refused("link-local", oscTo("osc.udp://169.254.0.1:9000"), field: "osc.url", says: "link-local"),
        Refused("IPv6 link-local", oscTo("osc.udp://[fe80::1]:9000"), field: "osc.url", says: "link-local"),
        Refused("multicast", oscTo("osc.udp://239.1.1.1:9000"), field: "osc.url", says: "multicast"),
        Refused("IPv6 multicast", oscTo("osc.udp://[ff02::1]:9000"), field: "osc.url", says: "multicast"),
        Refused("unspecified", oscTo("osc.tcp://0.0.0.0:9000"), field: "osc.url", says: "unspecified"),
        Refused(
            "own OSC port", oscTo("osc.udp://127.0.0.1:9000"), rules: .loopbackListener(port: 9000), field: "osc.url",
            says: "buttond's own address"),
        Refused(
            "own OSC port as 127.1", oscTo("osc.tcp://127.1:9000"), rules: .loopbackListener(port: 9000), field: "osc.url",
            says: "buttond's own address"),
        Refused(
            "own OSC port as 2130706433", oscTo("osc.udp://2130706433:9000"), rules: .loopbackListener(port: 9000), field: "osc.url",
            says: "buttond's own address"),
        Refused(
            "own OSC port IPv4-mapped", oscTo("osc.udp://[::ffff:127.0.0.1]:9000"), rules: .loopbackListener(port: 9000),
            field: "osc.url", says: "buttond's own address"),
        Refused("private, denied", oscTo("osc.udp://192.168.1.20:8000"), rules: .denyPrivate, field: "osc.url", says: "private"),
        Refused("loopback, denied", oscTo("osc.udp://127.0.0.1:8000"), rules: .denyPrivate, field: "osc.url", says: "loopback"),
    ]

    @Test(arguments: oscRules)
    func anOSCHandlerIsRefused(_ refused: Refused) throws { try refuse(refused) }

    // MARK: - Accepted: what a body becomes

    @Test func aWebhookGetsItsDefaults() throws {
        let handler = try Self.create(#"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/hook"}}"#)
        #expect(handler.action == .webhook(WebhookAction(url: "http://127.0.0.1:9/hook")))
        guard case .webhook(let hook) = handler.action else { Issue.record("not a webhook"); return }
        #expect(hook.method == "POST")
        #expect(hook.timeoutMs == 10_000)
        #expect(hook.headers.isEmpty)
        #expect(hook.body == nil)
        #expect(handler.maxAttempts == 7)
        #expect(handler.expireAfterMs == nil)
        #expect(handler.on == [.tap])
        #expect(handler.owner == .button("door"))
        #expect(handler.option == nil)
        #expect(handler.enabled && handler.ordered)
        #expect(handler.kind == "webhook")
        #expect(handler.id.hasPrefix("hdl_") && handler.id.count == 20, "\(handler.id)")
        #expect(try Self.create(#"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/hook"}}"#).id != handler.id)
    }

    @Test func aShapedWebhookKeepsItsTemplateAndPlaceholders() throws {
        let handler = try Self.create(
            #"""
            {"on": ["tap", "long-press", "tap"], "enabled": false, "ordered": false,
             "webhook": {"url": "http://ha.local:8123/api/services/light/{type}?button={button}&seq={seq}", "method": "put",
              "headers": {"Authorization": "Bearer {label}", "X-Seq": "{seq}"},
              "body": {"entity_id": "light.{button}", "brightness": "{face}", "event": "{event}", "tags": ["{option}", 1, null]},
              "timeoutMs": 30000, "maxAttempts": 20, "expireAfterMs": 604800000}}
            """#)
        var expected = WebhookAction(url: "http://ha.local:8123/api/services/light/{type}?button={button}&seq={seq}")
        expected.method = "PUT"
        expected.headers = ["Authorization": "Bearer {label}", "X-Seq": "{seq}"]
        expected.body = ["entity_id": "light.{button}", "brightness": "{face}", "event": "{event}", "tags": ["{option}", 1, nil]]
        expected.timeoutMs = 30_000
        #expect(handler.action == .webhook(expected))
        #expect(handler.maxAttempts == 20)
        #expect(handler.expireAfterMs == 604_800_000)
        #expect(handler.on == [.tap, .longPress], "duplicates are dropped, order kept")
        #expect(!handler.enabled && !handler.ordered)
        #expect(handler.usesLabel)
    }

    @Test func theLowestLimitsAreAccepted() throws {
        let url = "http://example.com/" + String(repeating: "a", count: 2048 - 19)
        let headers = (0..<32).map { #""X-H\#($0)": "v""# }.joined(separator: ", ")
        let deep = String(repeating: "[", count: 16) + String(repeating: "]", count: 16)
        let handler = try Self.create(
            Self.hook(
                #""url": ""# + url + #"", "timeoutMs": 1000, "maxAttempts": 1, "expireAfterMs": 1000, "headers": {"# + headers
                    + #"}, "body": "# + deep))
        guard case .webhook(let hook) = handler.action else { Issue.record("not a webhook"); return }
        #expect(hook.url.utf8.count == 2048)
        #expect(hook.timeoutMs == 1000)
        #expect(hook.headers.count == 32)
        #expect(hook.body != nil)
        #expect(handler.maxAttempts == 1)
        #expect(handler.expireAfterMs == 1000)
        #expect(!handler.usesLabel)
    }

    @Test(arguments: [("POST", "POST"), ("put", "PUT"), ("Patch", "PATCH"), ("get", "GET"), ("DELETE", "DELETE")])
    func methodsAreUpperCased(sent: String, stored: String) throws {
        let handler = try Self.create(Self.hook(Self.url + #", "method": ""# + sent + #"""#))
        guard case .webhook(let hook) = handler.action else { Issue.record("not a webhook"); return }
        #expect(hook.method == stored)
    }

    @Test func aNullBodyIsNoBodyAndDeleteMayCarryOne() throws {
        let none = try Self.create(Self.hook(Self.url + #", "method": "GET", "body": null"#))
        guard case .webhook(let get) = none.action else { Issue.record("not a webhook"); return }
        #expect(get.body == nil)
        let delete = try Self.create(Self.hook(Self.url + #", "method": "DELETE", "body": "{event}""#))
        guard case .webhook(let hook) = delete.action else { Issue.record("not a webhook"); return }
        #expect(hook.body == "{event}")
    }

    @Test func aSheetHandlerMayNameOneOfItsOptions() throws {
        let go = try Self.create(#"{"on": ["select"], "option": "go", "webhook": {"url": "http://127.0.0.1:9/"}}"#, owner: Self.menu)
        #expect(go.option == "go")
        #expect(go.owner == .sheet("menu"))
        let any = try Self.create(
            #"{"on": ["sheet-open", "select", "sheet-cancel"], "option": null, "webhook": {"url": "http://127.0.0.1:9/"}}"#,
            owner: Self.menu)
        #expect(any.option == nil)
        #expect(any.on == [.sheetOpen, .select, .sheetCancel])
        // Without the sheet's options (nothing to check against), any valid name is kept.
        let loose = try Handler.create(
            from: try Self.json(#"{"on": ["select"], "option": "pause", "webhook": {"url": "http://127.0.0.1:9/"}}"#), owner: Self.menu,
            context: Handler.Context(scriptsDir: nil))
        #expect(loose.option == "pause")
    }

    @Test func theStoredFormMayCarryItsIdAndOwner() throws {
        let body = #"{"id": "hdl_kept", "button": "door", "sheet": null, "on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/"}}"#
        let handler = try Self.create(body, envelope: true)
        #expect(handler.owner == .button("door"))
        #expect(handler.id != "hdl_kept", "the id is made by create, the caller sets a stored one")
        #expect(handler.on == [.tap])
    }

    @Test func aScriptGetsItsDefaults() throws {
        let dir = try ScriptsDir()
        let handler = try Self.create(Self.script(#""name": "hello.sh""#), scripts: dir.path)
        #expect(handler.action == .script(ScriptAction(name: "hello.sh")))
        guard case .script(let run) = handler.action else { Issue.record("not a script"); return }
        #expect(run.timeoutMs == 10_000)
        #expect(run.args.isEmpty)
        #expect(handler.maxAttempts == 1)
        #expect(handler.expireAfterMs == nil)
        #expect(handler.kind == "script")
    }

    @Test func aScriptKeepsItsArgumentsAndPlaceholders() throws {
        let dir = try ScriptsDir()
        let args = ["{button}", "{type}", "{seq}", "{t}", "{face}", "{option}", "--verbose", ""]
        let list = args.map { "\"\($0)\"" }.joined(separator: ", ")
        let handler = try Self.create(
            Self.script(#""name": "hello.sh", "timeoutMs": 300000, "maxAttempts": 20, "expireAfterMs": 60000, "args": ["# + list + "]"),
            scripts: dir.path)
        var expected = ScriptAction(name: "hello.sh")
        expected.args = args
        expected.timeoutMs = 300_000
        #expect(handler.action == .script(expected))
        #expect(handler.maxAttempts == 20)
        #expect(handler.expireAfterMs == 60_000)
        #expect(!handler.usesLabel)
        let labelled = try Self.create(Self.script(#""name": "hello.sh", "args": ["{label}"]"#), scripts: dir.path)
        #expect(labelled.usesLabel)
    }

    @Test func anOSCHandlerGetsItsDefaults() throws {
        let handler = try Self.create(Self.osc(#""url": "osc.udp://127.0.0.1:53000", "address": "/cue/{option}/start""#))
        #expect(handler.action == .osc(OSCAction(url: "osc.udp://127.0.0.1:53000", address: "/cue/{option}/start")))
        guard case .osc(let osc) = handler.action else { Issue.record("not osc"); return }
        #expect(!osc.slip)
        #expect(osc.args.isEmpty)
        #expect(handler.maxAttempts == 7)
        #expect(handler.expireAfterMs == nil)
        #expect(handler.kind == "osc")
    }

    @Test func anOSCHandlerTakesEveryTypeAndPlaceholdersForNumbers() throws {
        let handler = try Self.create(
            Self.osc(
                #"""
                "url": "osc.tcp://[::1]:3037", "address": "/eos/key/{button}", "slip": true, "maxAttempts": 3, "expireAfterMs": 5000,
                "args": [{"type": "i", "value": -2147483648}, {"type": "i", "value": "{face}"}, {"type": "h", "value": 9007199254740993},
                 {"type": "h", "value": "{seq}"}, {"type": "f", "value": 0.5}, {"type": "f", "value": 2}, {"type": "d", "value": "{t}"},
                 {"type": "s", "value": "go {label}"}, {"type": "T"}, {"type": "F", "value": null}, {"type": "N"}]
                """#))
        var expected = OSCAction(url: "osc.tcp://[::1]:3037", address: "/eos/key/{button}")
        expected.slip = true
        expected.args = [
            .init(type: "i", value: .int(-2_147_483_648)), .init(type: "i", value: "{face}"), .init(type: "h", value: .int(9_007_199_254_740_993)),
            .init(type: "h", value: "{seq}"), .init(type: "f", value: .double(0.5)), .init(type: "f", value: .int(2)),
            .init(type: "d", value: "{t}"), .init(type: "s", value: "go {label}"), .init(type: "T", value: .null),
            .init(type: "F", value: .null), .init(type: "N", value: .null),
        ]
        #expect(handler.action == .osc(expected))
        #expect(handler.maxAttempts == 3)
        #expect(handler.expireAfterMs == 5000)
        #expect(handler.usesLabel)
    }

    @Test(arguments: ["osc.udp://192.168.1.20:8000", "OSC.UDP://10.0.0.2:8000/", "osc.tcp://qlab.local:53000", "osc.udp://127.0.0.1:9001"])
    func oscDestinationsOnTheLANAreAllowed(url: String) throws {
        let handler = try Self.create(Self.oscTo(url), rules: .loopbackListener(port: 9000))
        guard case .osc(let osc) = handler.action else { Issue.record("not osc"); return }
        #expect(osc.url == url)
    }

    // MARK: - PATCH

    enum Base: String, Sendable {
        case webhook, script, osc, sheet

        var body: String {
            switch self {
            case .webhook:
                #"{"on": ["tap"], "webhook": {"url": "http://127.0.0.1:9/", "body": {"a": "{button}"}, "expireAfterMs": 60000}}"#
            case .script: #"{"on": ["tap"], "script": {"name": "hello.sh", "args": ["{button}"]}}"#
            case .osc: #"{"on": ["tap"], "osc": {"url": "osc.udp://127.0.0.1:53000", "address": "/go"}}"#
            case .sheet: #"{"on": ["select"], "option": "go", "webhook": {"url": "http://127.0.0.1:9/"}}"#
            }
        }

        var owner: Source { self == .sheet ? HandlerValidationTests.menu : HandlerValidationTests.door }
    }

    struct RefusedPatch: Sendable, CustomTestStringConvertible {
        let base: Base
        let refused: Refused
        var testDescription: String { "\(base.rawValue): \(refused.name)" }

        init(
            _ base: Base, _ name: String, _ patch: String, rules: Rules = .open, scripts: Bool = true, status: Int = 422, field: String?,
            says: String
        ) {
            self.base = base
            refused = Refused(name, patch, owner: base.owner, rules: rules, scripts: scripts, status: status, field: field, says: says)
        }
    }

    static let refusedPatches: [RefusedPatch] = [
        RefusedPatch(.webhook, "another id", #"{"id": "hdl_other"}"#, field: "id", says: "cannot change"),
        RefusedPatch(.webhook, "another button", #"{"button": "lamp"}"#, field: "button", says: "it is 'door'"),
        RefusedPatch(.sheet, "another sheet", #"{"sheet": "other"}"#, field: "sheet", says: "it is 'menu'"),
        RefusedPatch(.webhook, "ftp", #"{"webhook": {"url": "ftp://example.com/"}}"#, field: "webhook.url", says: "http or https"),
        RefusedPatch(
            .webhook, "a loop", #"{"webhook": {"url": "http://127.1:8080/"}}"#, rules: .loopbackListener(port: 8080),
            field: "webhook.url", says: "buttond's own address"),
        RefusedPatch(
            .webhook, "a private address, denied", #"{"webhook": {"url": "http://10.0.0.9/"}}"#, rules: .denyPrivate,
            field: "webhook.url", says: "private"),
        RefusedPatch(.webhook, "timeoutMs 50", #"{"webhook": {"timeoutMs": 50}}"#, field: "webhook.timeoutMs", says: "between 1000"),
        RefusedPatch(.webhook, "maxAttempts 0", #"{"webhook": {"maxAttempts": 0}}"#, field: "webhook.maxAttempts", says: "between 1"),
        RefusedPatch(
            .webhook, "expireAfterMs 1", #"{"webhook": {"expireAfterMs": 1}}"#, field: "webhook.expireAfterMs", says: "between 1000"),
        RefusedPatch(.webhook, "method", #"{"webhook": {"method": "TRACE"}}"#, field: "webhook.method", says: "POST"),
        RefusedPatch(
            .webhook, "a header of buttond's", #"{"webhook": {"headers": {"Connection": "close"}}}"#,
            field: "webhook.headers.Connection", says: "set by buttond"),
        RefusedPatch(
            .webhook, "a header value with LF", #"{"webhook": {"headers": {"X-A": "1\n2"}}}"#, field: "webhook.headers.X-A",
            says: "CR, LF"),
        RefusedPatch(.webhook, "GET with the body it has", #"{"webhook": {"method": "GET"}}"#, field: "webhook.body", says: "GET"),
        RefusedPatch(.webhook, "an unknown webhook member", #"{"webhook": {"retries": 1}}"#, field: "webhook.retries", says: "unknown"),
        RefusedPatch(.webhook, "a script member", #"{"script": {"name": "hello.sh"}}"#, field: "script", says: "is a webhook"),
        RefusedPatch(.webhook, "an osc member", #"{"osc": {"address": "/a"}}"#, field: "osc", says: "is a webhook"),
        RefusedPatch(.webhook, "on empty", #"{"on": []}"#, field: "on", says: "at least one"),
        RefusedPatch(.webhook, "on a sheet's event", #"{"on": ["tap", "sheet-open"]}"#, field: "on[1]", says: "'sheet-open'"),
        RefusedPatch(.webhook, "option on a button", #"{"option": "go"}"#, field: "option", says: "only for sheet"),
        RefusedPatch(.webhook, "an unknown member", #"{"colour": "red"}"#, field: "colour", says: "unknown field"),
        RefusedPatch(.webhook, "enabled not a boolean", #"{"enabled": 1}"#, status: 400, field: "enabled", says: "true or false"),
        RefusedPatch(.sheet, "option the sheet does not have", #"{"option": "pause"}"#, field: "option", says: "'pause'"),
        RefusedPatch(.script, "a webhook member", #"{"webhook": {"url": "http://127.0.0.1:9/"}}"#, field: "webhook", says: "is a script"),
        RefusedPatch(.script, "a name with a /", #"{"script": {"name": "bin/hello.sh"}}"#, field: "script.name", says: "no / or .."),
        RefusedPatch(.script, "a name not executable", #"{"script": {"name": "notes.txt"}}"#, field: "script.name", says: "not executable"),
        RefusedPatch(
            .script, "a name without a scripts directory", #"{"script": {"name": "hello.sh"}}"#, scripts: false, field: "script",
            says: "--scripts-dir"),
        RefusedPatch(
            .script, "timeoutMs over 300 s", #"{"script": {"timeoutMs": 300001}}"#, field: "script.timeoutMs", says: "300000"),
        RefusedPatch(.script, "an arg not a string", #"{"script": {"args": [true]}}"#, status: 400, field: "script.args[0]", says: "string"),
        RefusedPatch(.osc, "slip over UDP", #"{"osc": {"slip": true}}"#, field: "osc.slip", says: "osc.tcp://"),
        RefusedPatch(.osc, "a multicast url", #"{"osc": {"url": "osc.udp://224.0.0.1:9000"}}"#, field: "osc.url", says: "multicast"),
        RefusedPatch(
            .osc, "a loop to the OSC port", #"{"osc": {"url": "osc.udp://127.1:9000"}}"#, rules: .loopbackListener(port: 9000),
            field: "osc.url", says: "buttond's own address"),
        RefusedPatch(.osc, "an address without /", #"{"osc": {"address": "go"}}"#, field: "osc.address", says: "start with /"),
        RefusedPatch(.osc, "an arg type", #"{"osc": {"args": [{"type": "q"}]}}"#, field: "osc.args[0].type", says: "i, h, f"),
        RefusedPatch(.osc, "maxAttempts 21", #"{"osc": {"maxAttempts": 21}}"#, field: "osc.maxAttempts", says: "between 1 and 20"),
        RefusedPatch(.osc, "a webhook member", #"{"webhook": {"timeoutMs": 2000}}"#, field: "webhook", says: "is a osc"),
    ]

    @Test(arguments: refusedPatches)
    func aPatchIsRefused(_ patch: RefusedPatch) throws {
        let dir = try ScriptsDir()
        var handler = try Self.create(patch.base.body, owner: patch.base.owner, scripts: dir.path)
        let context = Self.context(patch.refused.rules, scripts: patch.refused.scripts ? dir.path : nil, owner: patch.base.owner)
        let body = try Self.json(patch.refused.body)
        try Self.check(Self.refusal { () throws(ButtonsError) in try handler.patch(with: body, context: context) }, against: patch.refused)
    }

    @Test func aPatchChangesWhatItNamesOnly() throws {
        let original = try Self.create(Base.webhook.body)
        var handler = original
        let context = Self.context(.open, scripts: nil, owner: Self.door)
        try handler.patch(with: try Self.json(#"{"enabled": false, "id": "\#(original.id)", "button": "door"}"#), context: context)
        var expected = original
        expected.enabled = false
        #expect(handler == expected)

        try handler.patch(
            with: try Self.json(
                #"{"on": ["long-press"], "ordered": false, "webhook": {"method": "put", "body": null, "timeoutMs": 2000, "maxAttempts": 3, "headers": {"X-A": "{seq}"}}}"#
            ), context: context)
        var hook = WebhookAction(url: "http://127.0.0.1:9/")
        hook.method = "PUT"
        hook.timeoutMs = 2000
        hook.headers = ["X-A": "{seq}"]
        expected.action = .webhook(hook)
        expected.on = [.longPress]
        expected.ordered = false
        expected.maxAttempts = 3
        #expect(handler == expected)
    }

    /// A null `expireAfterMs` or `option` in a PATCH should remove it, as a null `body` does (the
    /// code assigns an optional), but `Fields.has` is false for null, so the member is ignored and
    /// an expiry or an option once set can never be removed. Reported, not fixed here.
    @Test func aNullInAPatchRemovesAnExpiryOrAnOption() throws {
        var hook = try Self.create(Base.webhook.body)
        #expect(hook.expireAfterMs == 60_000)
        try hook.patch(with: try Self.json(#"{"webhook": {"expireAfterMs": null}}"#), context: Self.context(.open, scripts: nil, owner: Self.door))
        var sheet = try Self.create(Base.sheet.body, owner: Self.menu)
        #expect(sheet.option == "go")
        try sheet.patch(with: try Self.json(#"{"option": null}"#), context: Self.context(.open, scripts: nil, owner: Self.menu))
        #expect(hook.expireAfterMs == nil)
        #expect(sheet.option == nil)
    }

    @Test func aPatchOfAnOSCHandlerKeepsWhatItDoesNotName() throws {
        var handler = try Self.create(Base.osc.body)
        try handler.patch(
            with: try Self.json(#"{"osc": {"url": "osc.tcp://127.0.0.1:3037", "slip": true, "args": [{"type": "i", "value": "{face}"}]}}"#),
            context: Self.context(.open, scripts: nil, owner: Self.door))
        var expected = OSCAction(url: "osc.tcp://127.0.0.1:3037", address: "/go")
        expected.slip = true
        expected.args = [.init(type: "i", value: "{face}")]
        #expect(handler.action == .osc(expected))
        #expect(handler.maxAttempts == 7)
    }

    @Test func aPatchOfAScriptChecksTheNewName() throws {
        let dir = try ScriptsDir()
        #expect(FileManager.default.createFile(atPath: dir.path + "/other.sh", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o700]))
        var handler = try Self.create(Base.script.body, scripts: dir.path)
        try handler.patch(
            with: try Self.json(#"{"script": {"name": "other.sh", "args": [], "maxAttempts": 2}}"#),
            context: Self.context(.open, scripts: dir.path, owner: Self.door))
        #expect(handler.action == .script(ScriptAction(name: "other.sh")))
        #expect(handler.maxAttempts == 2)
    }
}
