import CMosquitto
import Platform
import Synchronization
import ThreadSupport

/// One connection to an MQTT broker, kept up for ever: libmosquitto does the protocol, a
/// thread of ours runs its network loop and reconnects with back-off. C types stay in this
/// target; callers see topics, byte payloads and plain results.
public final class MQTTClient: @unchecked Sendable {  // mutable state only under `lock`; libmosquitto locks its own
    /// What the network thread is doing.
    public enum Connection: String, Sendable {
        case disconnected, connecting, connected
    }

    /// How a `publish` that waits for the broker ended.
    public enum PublishResult: Sendable, Equatable {
        /// The broker has it (PUBACK).
        case acknowledged
        /// Not connected: nothing was sent.
        case notConnected
        /// No PUBACK in time. libmosquitto keeps the message and sends it again after a
        /// reconnect, so it may still arrive: treat it as "maybe delivered".
        case timedOut
        /// libmosquitto refused it (an invalid topic, a payload over the limit…).
        case failed(String)
    }

    /// Totals since `init`, for metrics and tests.
    public struct Counters: Sendable, Equatable {
        /// Messages handed to libmosquitto by `publish` and `send`.
        public var published = 0
        /// Broker acknowledgements (PUBACK, or for QoS 0 the message written to the socket).
        public var acknowledged = 0
        /// Successful connections after the first one.
        public var reconnects = 0
        /// Messages received on subscribed topics.
        public var received = 0

        public init(published: Int = 0, acknowledged: Int = 0, reconnects: Int = 0, received: Int = 0) {
            self.published = published
            self.acknowledged = acknowledged
            self.reconnects = reconnects
            self.received = received
        }
    }

    /// Everything the callers and the network thread share.
    struct State {
        var connection = Connection.disconnected
        var lastError: String?
        var counters = Counters()
        var started = false
        var stopping = false
        /// Set while the network thread runs; `stop` waits for it to clear.
        var running = false
        var networkThread: pthread_t?
        /// A DISCONNECT is queued: the network thread only waits for it to be written.
        var disconnectQueued = false
        var everConnected = false
        /// What the current connection attempt reached, to pick the back-off and the error.
        var connectedThisAttempt = false
        var refusedThisAttempt = false
        /// The last error libmosquitto logged in this attempt (OpenSSL's reason, say).
        var libraryError: String?
        /// Message id → whether the broker acknowledged it, for the `publish` calls waiting.
        var waiting: [Int32: Bool] = [:]
        /// Topic filters (with QoS) subscribed again after every connect.
        var subscriptions: [(topic: String, qos: Int)] = []
        var onConnect: (@Sendable () -> Void)?
        var onMessage: (@Sendable (Message) -> Void)?
        var onTrouble: (@Sendable (String) -> Void)?
    }

    public let options: Options
    /// What the waits for the broker (acknowledgements, back-off, a stop) are measured on.
    public let clock: Clock
    /// nil when libmosquitto refused the settings; `configurationError` says why.
    let handle: OpaquePointer?
    let configurationError: String?
    let lock = Condition()
    var state = State()
    /// `state.connection == .connected`, readable without `lock` (which a publish holds while it
    /// hands a run of messages over): a caller that only asks whether to try never waits.
    private let connectedNow = Atomic<Bool>(false)

    /// With `lock` held: the connection's new state.
    func setConnection(_ connection: Connection) {
        state.connection = connection
        connectedNow.store(connection == .connected, ordering: .releasing)
    }

    /// Whether the client is connected, without waiting for a publish in progress.
    public var isConnected: Bool { connectedNow.load(ordering: .acquiring) }

    public init(options: Options, clock: Clock) {
        _ = mosquittoLibraryReady
        self.options = options
        self.clock = clock
        var error: String?
        handle = mosquitto_new(options.clientID.isEmpty ? nil : options.clientID, true, nil)
        if let handle {
            error = Self.configure(handle, options)
        } else {
            error = "cannot create the MQTT client (client id \(options.clientID.quoted)): \(String(cString: strerror(errno)))"
        }
        configurationError = error
        if let handle {
            mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
            installCallbacks(handle)
        }
    }

    deinit {
        // The network thread holds a strong reference while it runs, so no callback can
        // arrive from here on.
        if let handle { mosquitto_destroy(handle) }
    }

    /// Called (on the network thread) after every successful (re)connect, once the
    /// subscriptions are renewed: republish retained state here, with `send` (a `publish`
    /// there would wait for an acknowledgement only this thread can read). Set before `start`.
    public func onConnect(_ handler: @escaping @Sendable () -> Void) {
        lock.locked { state.onConnect = handler }
    }

    /// Called (on the network thread) with every message received on a subscription (its
    /// `retain` set when the broker kept it from before); keep it short, the connection waits.
    /// Set before `start`.
    public func onMessage(_ handler: @escaping @Sendable (Message) -> Void) {
        lock.locked { state.onMessage = handler }
    }

    /// Called (on the network thread) with `lastError` each time an attempt to connect fails
    /// or the connection is lost. Set before `start`.
    public func onTrouble(_ handler: @escaping @Sendable (String) -> Void) {
        lock.locked { state.onTrouble = handler }
    }

    public var connection: Connection { lock.locked { state.connection } }

    /// Why the client is not connected (a refused login, the connection lost, a bad CA
    /// file…); cleared by the next successful connect.
    public var lastError: String? { lock.locked { state.lastError } }

    public var counters: Counters { lock.locked { state.counters } }

    /// Publishes at QoS 1 (2 if the message asks for it) and waits until the broker
    /// acknowledged it or `timeout` seconds passed. Returns at once with `.notConnected` when
    /// not connected. A timed-out message may still be delivered later (see `PublishResult`).
    public func publish(_ message: Message, timeout: Double) -> PublishResult {
        guard let handle else { return .failed(configurationError ?? "not configured") }
        lock.lock()
        defer { lock.unlock() }
        guard state.connection == .connected else { return .notConnected }
        if let thread = state.networkThread, pthread_equal(thread, pthread_self()) != 0 {
            return .failed("publish cannot wait on the MQTT network thread: use send")
        }
        // Under `lock`, so the acknowledgement (which takes it) cannot overtake the
        // registration of its message id.
        var mid: Int32 = 0
        let rc = Self.publish(handle, message, qos: min(max(message.qos, 1), 2), mid: &mid)
        // NO_CONN with a message id: the socket closed just now, and libmosquitto keeps the
        // message to send after the reconnect, so wait for its acknowledgement as usual.
        guard rc == MOSQ_ERR_SUCCESS.rawValue || (rc == MOSQ_ERR_NO_CONN.rawValue && mid != 0) else {
            return rc == MOSQ_ERR_NO_CONN.rawValue ? .notConnected : .failed(describe(rc))
        }
        state.counters.published += 1
        state.waiting[mid] = false
        defer { state.waiting[mid] = nil }
        let deadline = monotonicSeconds() + timeout
        while state.waiting[mid] == false {
            let left = deadline - monotonicSeconds()
            if left <= 0 { return .timedOut }
            lock.wait(seconds: left)
        }
        return .acknowledged
    }

    /// Queues a publish without waiting (retained state and discovery). Dropped when not
    /// connected, so that nothing stale is sent after a reconnect: the `onConnect` handler
    /// republishes the current state. False when it was not handed to libmosquitto.
    @discardableResult
    public func send(_ message: Message) -> Bool {
        guard let handle else { return false }
        return lock.locked {
            guard state.connection == .connected else { return false }
            var mid: Int32 = 0
            let rc = Self.publish(handle, message, qos: min(max(message.qos, 0), 2), mid: &mid)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else { return false }
            state.counters.published += 1
            return true
        }
    }

    /// Subscribes to a topic filter now if connected, and again after every reconnect (the
    /// session is clean, so the broker forgets subscriptions with the connection). False for
    /// an invalid filter.
    @discardableResult
    public func subscribe(_ topic: String, qos: Int = 1) -> Bool {
        guard let handle, mosquitto_sub_topic_check(topic) == MOSQ_ERR_SUCCESS.rawValue else { return false }
        let qos = min(max(qos, 0), 2)
        return lock.locked {
            state.subscriptions.removeAll { $0.topic == topic }
            state.subscriptions.append((topic, qos))
            if state.connection == .connected {
                _ = mosquitto_subscribe(handle, nil, topic, Int32(qos))
            }
            return true
        }
    }

    /// Subscribes for the present connection only (not renewed after a reconnect): a look at
    /// what the broker retains under a filter. False when not connected or for an invalid filter.
    @discardableResult
    public func subscribeForNow(_ topic: String, qos: Int = 1) -> Bool {
        guard let handle, mosquitto_sub_topic_check(topic) == MOSQ_ERR_SUCCESS.rawValue else { return false }
        return lock.locked {
            state.connection == .connected && mosquitto_subscribe(handle, nil, topic, Int32(min(max(qos, 0), 2))) == MOSQ_ERR_SUCCESS.rawValue
        }
    }

    /// Ends a subscription (and its renewal after reconnects).
    public func unsubscribe(_ topic: String) {
        guard let handle else { return }
        lock.locked {
            state.subscriptions.removeAll { $0.topic == topic }
            if state.connection == .connected { _ = mosquitto_unsubscribe(handle, nil, topic) }
        }
    }

    static func publish(_ handle: OpaquePointer, _ message: Message, qos: Int, mid: inout Int32) -> Int32 {
        guard message.payload.count <= Int(Int32.max) else { return Int32(MOSQ_ERR_PAYLOAD_SIZE.rawValue) }
        return mosquitto_publish(
            handle, &mid, message.topic, Int32(message.payload.count), message.payload, Int32(qos), message.retain)
    }

    /// Applies everything libmosquitto needs before the first connect; the error, if any.
    private static func configure(_ handle: OpaquePointer, _ options: Options) -> String? {
        mosquitto_threaded_set(handle, true)
        _ = mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
        if let username = options.username {
            let rc = mosquitto_username_pw_set(handle, username, options.password)
            if rc != MOSQ_ERR_SUCCESS.rawValue { return "MQTT user name: \(describe(rc))" }
        }
        if let will = options.will {
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(
                    handle, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(min(max(will.qos, 0), 2)), will.retain)
            }
            if rc != MOSQ_ERR_SUCCESS.rawValue { return "MQTT last will on \(will.topic.quoted): \(describe(rc))" }
        }
        if options.tls {
            let rc = mosquitto_tls_set(handle, options.caFile, options.caFile == nil ? "/etc/ssl/certs" : nil, nil, nil, nil)
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                return "MQTT TLS with CA \((options.caFile ?? "/etc/ssl/certs").quoted): \(describe(rc))"
            }
        }
        return nil
    }
}

/// `mosquitto_lib_init` once per process, before the first client (a Swift global is
/// initialized exactly once, thread-safely).
private let mosquittoLibraryReady: Bool = {
    mosquitto_lib_init()
    return true
}()

/// libmosquitto's text for an error code (the system's for MOSQ_ERR_ERRNO).
func describe(_ rc: Int32, errno savedErrno: Int32 = errno) -> String {
    if rc == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(savedErrno)) }
    return String(cString: mosquitto_strerror(rc))
}

extension MQTTClient {
    /// Seconds on the client's monotonic clock.
    func monotonicSeconds() -> Double { clock.monotonic() }
}
