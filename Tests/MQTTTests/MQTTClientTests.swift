import Foundation
import Platform
import MQTT
import Synchronization
import Testing
import TestSupport

typealias Message = MQTTClient.Message

// MARK: - URL parsing

struct GoodURL: Sendable, CustomStringConvertible {
    var url: String
    var host: String
    var port: Int
    var tls = false
    var username: String?
    var password: String?
    var description: String { url }
}

@Test(arguments: [
    GoodURL(url: "mqtt://localhost", host: "localhost", port: 1883),
    GoodURL(url: "mqtt://broker.lan:1884", host: "broker.lan", port: 1884),
    GoodURL(url: "mqtts://broker.example.com", host: "broker.example.com", port: 8883, tls: true),
    GoodURL(url: "mqtts://broker.example.com:443/", host: "broker.example.com", port: 443, tls: true),
    GoodURL(url: "MQTT://Broker_1", host: "Broker_1", port: 1883),
    GoodURL(url: "mqtt://user@10.0.0.2", host: "10.0.0.2", port: 1883, username: "user"),
    GoodURL(url: "mqtt://user:secret@h:1", host: "h", port: 1, username: "user", password: "secret"),
    GoodURL(url: "mqtt://user:@h", host: "h", port: 1883, username: "user", password: ""),
    GoodURL(url: "mqtt://us%20er:p%40ss%3A@h", host: "h", port: 1883, username: "us er", password: "p@ss:"),
    GoodURL(url: "mqtt://u:p:q@s@h", host: "h", port: 1883, username: "u", password: "p:q@s"),
    GoodURL(url: "mqtt://[::1]", host: "::1", port: 1883),
    GoodURL(url: "mqtts://u:p@[fe80::1:2]:8884", host: "fe80::1:2", port: 8884, tls: true, username: "u", password: "p"),
    GoodURL(url: "mqtt://[::ffff:10.0.0.1]:65535", host: "::ffff:10.0.0.1", port: 65535),
])
func parsesURL(_ good: GoodURL) throws {
    let options = try MQTTClient.Options.parse(url: good.url, clientID: "buttond-test")
    #expect(options.host == good.host)
    #expect(options.port == good.port)
    #expect(options.tls == good.tls)
    #expect(options.username == good.username)
    #expect(options.password == good.password)
    #expect(options.clientID == "buttond-test")
    #expect(options.caFile == nil)
    #expect(options.keepAliveSeconds == 30)
}

@Test(arguments: [
    "", "localhost", "http://host", "mqtt:/host", "mqtt://", "mqtt:///", "mqtt://host:", "mqtt://host:0",
    "mqtt://host:65536", "mqtt://host:12ab", "mqtt://host:-1", "mqtt://host/topic", "mqtt://host?x=1", "mqtt://host#f",
    "mqtt://ho st", "mqtt://hö", "mqtt://[::1", "mqtt://[::1]x", "mqtt://[::1]:", "mqtt://[zz]", "mqtt://[]",
    "mqtt://:pass@host", "mqtt://@host", "mqtt://us%zzer@host", "mqtt://user:p%4@host", "mqtt://user:secret@",
])
func refusesURL(_ url: String) {
    #expect(throws: MQTTError.self) { try MQTTClient.Options.parse(url: url, clientID: "buttond-test") }
}

@Test func parseErrorsNeverShowThePassword() {
    for url in ["http://user:hunter2@host", "mqtt://user:hunter2@host:99999", "mqtt://user:hunter2@ho st"] {
        do {
            _ = try MQTTClient.Options.parse(url: url, clientID: "c")
            Issue.record("\(url) parsed")
        } catch {
            #expect(!error.description.contains("hunter2"))
            #expect(error.description.contains("MQTT URL"))
        }
    }
}

@Test func refusesBadClientID() {
    for id in ["", "tab\there", String(repeating: "x", count: 65536)] {
        #expect(throws: MQTTError.self) { try MQTTClient.Options.parse(url: "mqtt://h", clientID: id) }
    }
}

// MARK: - Against a real broker

@Test func connectsAndStops() throws {
    let broker = try Broker()
    let client = MQTTClient(options: broker.options("connect"), clock: .system)
    let connects = Tally()
    let waitedOnNetworkThread = Tally()
    client.onConnect {
        connects.add()
        // Waiting here for a PUBACK only this thread could read would hang the connection.
        if case .failed = client.publish(Message(topic: "t", text: "x"), timeout: 5) { waitedOnNetworkThread.add() }
    }
    #expect(client.connection == .disconnected)
    client.start()
    #expect(eventually { client.connection == .connected }, "\(client.lastError ?? "")\n\(broker.log)")
    #expect(eventually { connects.value == 1 })
    #expect(waitedOnNetworkThread.value == 1)
    #expect(client.lastError == nil)
    client.stop(final: nil)
    #expect(client.connection == .disconnected)
    #expect(client.publish(Message(topic: "t", text: "x"), timeout: 1) == .notConnected)
}

@Test func publishIsAcknowledgedAndDelivered() throws {
    let broker = try Broker()
    let (subscriber, publisher) = try broker.subscriberAndPublisher()
    defer { stopAll(subscriber.client, publisher.client) }
    let payload: [UInt8] = [0, 1, 2, 0xFF] + Array("{\"type\":\"tap\"}".utf8)
    let result = publisher.client.publish(Message(topic: "buttond/x/button/1/event", payload: payload), timeout: 5)
    #expect(result == .acknowledged)
    #expect(subscriber.inbox.waitFor(topic: "buttond/x/button/1/event") == payload)
    #expect(publisher.client.counters.published == 1)
    #expect(publisher.client.counters.acknowledged == 1)
    #expect(subscriber.client.counters.received >= 1)
    // `send` does not wait, but arrives all the same, in order.
    for n in 0..<20 { #expect(publisher.client.send(Message(topic: "buttond/seq", text: "\(n)", qos: n % 2))) }
    #expect(eventually { subscriber.inbox.all(topic: "buttond/seq").count == 20 })
    #expect(subscriber.inbox.all(topic: "buttond/seq").map { String(decoding: $0, as: UTF8.self) } == (0..<20).map(String.init))
    #expect(!publisher.client.send(Message(topic: "bad/+/topic", text: "x")))
    guard case .failed = publisher.client.publish(Message(topic: "bad/#", text: "x"), timeout: 1) else {
        Issue.record("a wildcard topic was published")
        return
    }
}

@Test func retainedMessageReachesALateSubscriber() throws {
    let broker = try Broker()
    let publisher = try broker.connectedClient("pub")
    defer { publisher.client.stop(final: nil) }
    let state = Message(topic: "buttond/x/button/1/state", text: "{\"held\":false}", retain: true)
    #expect(publisher.client.publish(state, timeout: 5) == .acknowledged)
    let late = try broker.connectedClient("late", subscribe: "buttond/x/button/+/state")
    defer { late.client.stop(final: nil) }
    #expect(late.inbox.waitFor(topic: state.topic) == state.payload)
}

@Test func connectsOnceTheBrokerComesUp() throws {
    let broker = try Broker(start: false)
    let client = MQTTClient(options: broker.options("early"), clock: .system)
    let connects = Tally()
    client.onConnect { connects.add() }
    client.start()
    defer { client.stop(final: nil) }
    let begin = Date()
    #expect(client.publish(Message(topic: "t", text: "x"), timeout: 5) == .notConnected)
    #expect(Date().timeIntervalSince(begin) < 0.5)
    #expect(!client.send(Message(topic: "t", text: "x")))
    #expect(eventually(5) { client.lastError != nil })
    #expect(client.connection == .connecting)
    #expect(client.lastError?.contains("refused") == true, "\(client.lastError ?? "")")
    try broker.start()
    #expect(eventually(10) { client.connection == .connected }, "\(client.lastError ?? "")")
    #expect(eventually { connects.value == 1 })
    #expect(client.lastError == nil)
    #expect(client.counters.reconnects == 0)
}

@Test func reconnectsAfterTheBrokerRestarts() throws {
    let broker = try Broker()
    let connects = Tally()
    let watcher = try broker.connectedClient("watcher", subscribe: "buttond/#") { connects.add() }
    defer { watcher.client.stop(final: nil) }
    #expect(connects.value == 1)
    broker.kill()
    #expect(eventually { watcher.client.connection != .connected })
    #expect(eventually { watcher.client.lastError != nil })
    #expect(watcher.client.publish(Message(topic: "t", text: "x"), timeout: 1) == .notConnected)
    try broker.start()
    #expect(eventually(10) { watcher.client.connection == .connected }, "\(watcher.client.lastError ?? "")")
    #expect(eventually { connects.value == 2 })
    #expect(watcher.client.counters.reconnects >= 1)
    // The subscription was renewed on the new connection.
    let publisher = try broker.connectedClient("pub")
    defer { publisher.client.stop(final: nil) }
    #expect(publisher.client.publish(Message(topic: "buttond/after", text: "again"), timeout: 5) == .acknowledged)
    #expect(watcher.inbox.waitFor(topic: "buttond/after") == Array("again".utf8))
}

@Test func stopPublishesTheFinalMessageInsteadOfTheWill() throws {
    let broker = try Broker()
    var options = broker.options("leaving")
    options.will = Message(topic: "buttond/x/status", text: "offline (will)", retain: true)
    let client = MQTTClient(options: options, clock: .system)
    client.onConnect { client.send(Message(topic: "buttond/x/status", text: "online", retain: true)) }
    client.start()
    #expect(eventually { client.connection == .connected })
    let watcher = try broker.connectedClient("watcher", subscribe: "buttond/x/status")
    defer { watcher.client.stop(final: nil) }
    #expect(watcher.inbox.waitFor(topic: "buttond/x/status") == Array("online".utf8))
    client.stop(final: Message(topic: "buttond/x/status", text: "offline", retain: true))
    #expect(client.connection == .disconnected)
    #expect(eventually { watcher.inbox.all(topic: "buttond/x/status").count == 2 })
    Thread.sleep(forTimeInterval: 0.3)  // a will would follow the disconnect at once
    #expect(watcher.inbox.all(topic: "buttond/x/status").map { String(decoding: $0, as: UTF8.self) } == ["online", "offline"])
    let late = try broker.connectedClient("late", subscribe: "buttond/x/status")
    defer { late.client.stop(final: nil) }
    #expect(late.inbox.waitFor(topic: "buttond/x/status") == Array("offline".utf8))
}

@Test func checksUserAndPassword() throws {
    let broker = try Broker(users: ["buttond": "right horse"])
    var wrong = broker.options("wrong")
    (wrong.username, wrong.password) = ("buttond", "battery staple")
    let refused = MQTTClient(options: wrong, clock: .system)
    refused.start()
    defer { refused.stop(final: nil) }
    #expect(eventually { refused.lastError != nil })
    #expect(refused.lastError?.contains("not authori") == true, "\(refused.lastError ?? "")")
    #expect(refused.connection != .connected)
    var anonymous = broker.options("anonymous")
    anonymous.username = nil
    let nobody = MQTTClient(options: anonymous, clock: .system)
    nobody.start()
    defer { nobody.stop(final: nil) }
    #expect(eventually { nobody.lastError != nil })
    var right = broker.options("right")
    (right.username, right.password) = ("buttond", "right horse")
    let accepted = MQTTClient(options: right, clock: .system)
    accepted.start()
    defer { accepted.stop(final: nil) }
    #expect(eventually { accepted.connection == .connected }, "\(accepted.lastError ?? "")\n\(broker.log)")
    #expect(refused.connection != .connected)
    #expect(nobody.connection != .connected)
}

@Test func refusesAMissingCAFile() throws {
    var options = try MQTTClient.Options.parse(url: "mqtts://127.0.0.1:1", clientID: "tls")
    options.caFile = "/nonexistent/ca.pem"
    let client = MQTTClient(options: options, clock: .system)
    client.start()
    defer { client.stop(final: nil) }
    #expect(client.connection == .disconnected)
    #expect(client.lastError?.contains("/nonexistent/ca.pem") == true, "\(client.lastError ?? "")")
}

@Test func stopsPromptlyWhileTheBrokerIsDown() throws {
    let broker = try Broker(start: false)
    let client = MQTTClient(options: broker.options("down"), clock: .system)
    client.start()
    #expect(eventually { client.lastError != nil })
    let begin = Date()
    client.stop(final: Message(topic: "t", text: "offline", retain: true))
    #expect(Date().timeIntervalSince(begin) < 1)
    #expect(client.connection == .disconnected)
    client.start()  // once stopped, for good
    Thread.sleep(forTimeInterval: 0.1)
    #expect(client.connection == .disconnected)
}

@Test func theBrokerPublishesTheWillWhenTheConnectionIsTakenOver() throws {
    let broker = try Broker()
    var options = broker.options("willing")
    options.will = Message(topic: "buttond/x/status", text: "offline", retain: true)
    let first = MQTTClient(options: options, clock: .system)
    first.start()
    defer { first.stop(final: nil) }
    #expect(eventually { first.connection == .connected })
    let watcher = try broker.connectedClient("watcher", subscribe: "buttond/x/status")
    defer { watcher.client.stop(final: nil) }
    // A second client with the same id makes the broker drop the first as if it had died.
    options.will = nil
    let second = MQTTClient(options: options, clock: .system)
    second.start()
    defer { second.stop(final: nil) }
    #expect(watcher.inbox.waitFor(topic: "buttond/x/status") == Array("offline".utf8), "\(broker.log)")
}

@Test func connectsOverTLSCheckingTheCertificate() throws {
    let broker = try Broker(tls: true)
    var options = try MQTTClient.Options.parse(url: "mqtts://127.0.0.1:\(broker.port)", clientID: "tls-\(UUID().uuidString.prefix(8))")
    options.caFile = broker.certificate
    let client = MQTTClient(options: options, clock: .system)
    client.start()
    defer { client.stop(final: nil) }
    #expect(eventually { client.connection == .connected }, "\(client.lastError ?? "")\n\(broker.log)")
    #expect(client.publish(Message(topic: "buttond/tls", text: "secret"), timeout: 5) == .acknowledged)
    // The system's CAs do not know this broker's certificate: refused, and retried.
    options.caFile = nil
    options.clientID += "-untrusting"
    let untrusting = MQTTClient(options: options, clock: .system)
    untrusting.start()
    defer { untrusting.stop(final: nil) }
    #expect(eventually { untrusting.lastError?.contains("certificate verify failed") == true }, "\(untrusting.lastError ?? "")")
    // Not given up, as libmosquitto's own loop would after a TLS error: attempts at 0, 1 and 3 s.
    #expect(eventually(6) { broker.log.components(separatedBy: "unknown ca").count > 3 }, "\(broker.log)")
    #expect(untrusting.connection == .connecting)
}

/// What the integrator relies on: a QoS 1 message whose PUBACK did not come in time stays in
/// libmosquitto and is delivered late (here, when a frozen broker thaws).
@Test func timedOutPublishIsStillDeliveredLater() throws {
    let broker = try Broker()
    let (subscriber, publisher) = try broker.subscriberAndPublisher()
    defer { stopAll(subscriber.client, publisher.client) }
    broker.signal(SIGSTOP)
    let result = publisher.client.publish(Message(topic: "buttond/late", text: "slow"), timeout: 0.5)
    broker.signal(SIGCONT)
    #expect(result == .timedOut)
    #expect(subscriber.inbox.waitFor(topic: "buttond/late") == Array("slow".utf8))
    #expect(eventually { publisher.client.counters.acknowledged == 1 })
}

/// …and one still unacknowledged when the connection is lost is sent again after the
/// reconnect (to a broker that lost everything: the retained copy proves it arrived).
@Test func unacknowledgedPublishIsResentAfterReconnect() throws {
    let broker = try Broker()
    let publisher = try broker.connectedClient("pub")
    defer { publisher.client.stop(final: nil) }
    broker.signal(SIGSTOP)
    let message = Message(topic: "buttond/resent", text: "kept", retain: true)
    #expect(publisher.client.publish(message, timeout: 0.5) == .timedOut)
    broker.kill()
    try broker.start()
    #expect(eventually(10) { publisher.client.connection == .connected })
    let late = try broker.connectedClient("late", subscribe: "buttond/resent")
    defer { late.client.stop(final: nil) }
    #expect(late.inbox.waitFor(topic: "buttond/resent") == Array("kept".utf8))
}
