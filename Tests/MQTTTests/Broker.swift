import Foundation
import TestSupport
import Platform
import MQTT
import Synchronization
import Testing

// The tests' helpers: a real mosquitto broker on a free port, waits, inboxes.

/// A count shared with callbacks on the network thread.
final class Tally: Sendable {
    private let count = Atomic(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// Messages a test client received, in order.
final class Inbox: Sendable {
    private let messages = Mutex<[(topic: String, payload: [UInt8])]>([])

    func append(_ topic: String, _ payload: [UInt8]) { messages.withLock { $0.append((topic, payload)) } }
    func all(topic: String) -> [[UInt8]] { messages.withLock { $0.filter { $0.topic == topic }.map(\.payload) } }

    /// The first payload received on `topic`, waiting up to 5 s for it.
    func waitFor(topic: String) -> [UInt8]? {
        var found: [UInt8]?
        _ = eventually {
            found = all(topic: topic).first
            return found != nil
        }
        return found
    }
}

/// A private mosquitto broker on a free 127.0.0.1 port, killed when the test ends.
final class Broker: @unchecked Sendable {  // used from the test's thread only
    let port: Int
    let directory: URL
    /// With `tls`: the broker's self-signed certificate (for 127.0.0.1), the CA to trust.
    var certificate: String { directory.appendingPathComponent("cert.pem").path }
    private var process: Process?

    static let binary: String? = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto", "/usr/local/sbin/mosquitto"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Writes the configuration (a password file for `users`, a certificate for `tls`) and
    /// starts the broker.
    init(users: [String: String] = [:], tls: Bool = false, start: Bool = true) throws {
        guard Self.binary != nil else {
            throw Failure(description: "mosquitto is not installed: apt-get install -y mosquitto (make test installs it)")
        }
        port = try freePort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mqtt-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var config = [
            "listener \(port) 127.0.0.1", "persistence false", "log_dest stderr", "log_type all",
            // Run as root (the tests' user in CI) it would otherwise switch to user mosquitto.
            "user \(NSUserName())",
        ]
        if tls {
            let key = directory.appendingPathComponent("key.pem").path
            try run([
                "/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ])
            config += ["certfile \(certificate)", "keyfile \(key)"]
        }
        if users.isEmpty {
            config.append("allow_anonymous true")
        } else {
            let passwords = directory.appendingPathComponent("passwords").path
            _ = FileManager.default.createFile(atPath: passwords, contents: nil, attributes: [.posixPermissions: 0o600])
            for (user, password) in users {
                try run(["/usr/bin/mosquitto_passwd", "-b", passwords, user, password])
            }
            config += ["allow_anonymous false", "password_file \(passwords)"]
        }
        try (config.joined(separator: "\n") + "\n").write(
            to: directory.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
        if start { try self.start() }
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    var log: String { (try? String(contentsOf: directory.appendingPathComponent("log"), encoding: .utf8)) ?? "" }

    /// Starts (or restarts, on the same port) the broker and waits until it accepts connections.
    func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary!)
        process.arguments = ["-c", directory.appendingPathComponent("mosquitto.conf").path]
        let logURL = directory.appendingPathComponent("log")
        if !FileManager.default.fileExists(atPath: logURL.path) {
            _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        }
        let log = try FileHandle(forWritingTo: logURL)
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        self.process = process
        guard eventually(10, { !process.isRunning || canConnect(port: port) }), process.isRunning else {
            throw Failure(description: "mosquitto did not start:\n\(self.log)")
        }
    }

    /// Kills the broker abruptly (no goodbye to its clients) and waits for it to exit.
    func kill() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    func signal(_ signal: Int32) {
        if let process { Glibc.kill(process.processIdentifier, signal) }
    }

    func options(_ name: String) -> MQTTClient.Options {
        var options = try! MQTTClient.Options.parse(url: "mqtt://127.0.0.1:\(port)", clientID: "\(name)-\(UUID().uuidString.prefix(8))")
        options.keepAliveSeconds = 10
        return options
    }

    /// A started client, connected, subscribed to `topic` (checked with a message of its own
    /// on a probe topic subscribed after it: the broker handles a connection's packets in
    /// order), collecting what it receives.
    /// A client subscribed to `buttond/#` and one to publish with, both connected.
    func subscriberAndPublisher() throws -> (subscriber: (client: MQTTClient, inbox: Inbox), publisher: (client: MQTTClient, inbox: Inbox)) {
        (try connectedClient("sub", subscribe: "buttond/#"), try connectedClient("pub"))
    }

    func connectedClient(
        _ name: String, subscribe topic: String? = nil, onConnect: @escaping @Sendable () -> Void = {}
    ) throws -> (client: MQTTClient, inbox: Inbox) {
        let options = self.options(name)
        let client = MQTTClient(options: options, clock: .system)
        let inbox = Inbox()
        client.onMessage { inbox.append($0.topic, $0.payload) }
        client.onConnect(onConnect)
        let probe = "probe/\(options.clientID)"
        if let topic {
            client.subscribe(topic)
            client.subscribe(probe)
        }
        client.start()
        guard eventually(5, { client.connection == .connected }) else {
            throw Failure(description: "\(name) did not connect: \(client.lastError ?? "")\n\(log)")
        }
        if topic != nil {
            guard client.publish(Message(topic: probe, text: "probe"), timeout: 5) == .acknowledged,
                inbox.waitFor(topic: probe) != nil
            else { throw Failure(description: "\(name) did not get its probe on \(probe)") }
        }
        return (client, inbox)
    }
}

func run(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw Broker.Failure(description: "\(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
    }
}

/// A port nothing listens on (bound to 0, read back, released).
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else { throw Broker.Failure(description: "no free port: \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// Stops each client without a final message.
func stopAll(_ clients: MQTTClient...) {
    for client in clients { client.stop(final: nil) }
}
