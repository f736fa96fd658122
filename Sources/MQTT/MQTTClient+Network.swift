import CMosquitto
import Platform
import ThreadSupport

// The network thread and libmosquitto's callbacks. The thread is ours, not
// `mosquitto_loop_start`'s: libmosquitto's own loop (`mosquitto_loop_forever`) returns for good
// after a TLS, protocol or authentication error and backs off quadratically (1, 4, 9… s); this
// one retries for ever, waits 1 s doubling to 30 s, and wakes at once for `stop`.

extension MQTTClient {
    /// Starts the network thread, which connects in the background and reconnects with
    /// back-off (1 s doubling to 30 s, back to 1 s after a successful connect) for ever. Once.
    public func start() {
        let ready: Bool = lock.locked {
            guard !state.started else { return false }
            state.started = true
            guard configurationError == nil else {
                state.lastError = configurationError
                return false
            }
            setConnection(.connecting)
            state.running = true
            return true
        }
        guard ready else { return }
        startThread(name: "mqtt") { self.run() }
    }

    /// Publishes `final` (e.g. retained "offline") if connected and waits (2 s at most) for its
    /// acknowledgement, disconnects cleanly (so the broker drops the last will) and ends the
    /// network thread (waiting up to 5 s for it). The client cannot be started again.
    public func stop(final: Message?) {
        if let final, connection == .connected {
            if publish(final, timeout: 2) != .acknowledged { send(final) }
        }
        let onNetworkThread: Bool = lock.locked {
            state.started = true
            state.stopping = true
            if state.connection == .connected, !state.disconnectQueued, let handle {
                // Queues DISCONNECT and wakes the loop; the thread exits once it is written.
                state.disconnectQueued = mosquitto_disconnect(handle) == MOSQ_ERR_SUCCESS.rawValue
            }
            lock.broadcast()
            return state.networkThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        }
        guard !onNetworkThread else { return }
        lock.locked {
            let deadline = monotonicSeconds() + 5
            while state.running, monotonicSeconds() < deadline {
                lock.wait(seconds: deadline - monotonicSeconds())
            }
            setConnection(.disconnected)
        }
    }

    /// The network thread: connect, run the loop until the connection ends, back off, again.
    func run() {
        guard let handle else { return }
        lock.locked { state.networkThread = pthread_self() }
        var delay = 1.0
        while !lock.locked({ state.stopping }) {
            lock.locked {
                state.connectedThisAttempt = false
                state.refusedThisAttempt = false
                state.libraryError = nil
            }
            var rc = mosquitto_connect_async(
                handle, options.host, Int32(options.port), Int32(min(max(options.keepAliveSeconds, 5), 65535)))
            var savedErrno = errno
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                (rc, savedErrno) = serve(handle)
            }
            let (reached, trouble): (Bool, (@Sendable () -> Void)?) = lock.locked {
                var trouble: (@Sendable () -> Void)?
                if !state.stopping {
                    // Publishers only touch the connection while `.connected`: from here on
                    // this thread may reconnect it alone.
                    setConnection(.connecting)
                    if !state.connectedThisAttempt, !state.refusedThisAttempt {
                        let detail = state.libraryError.map { " (\($0))" } ?? ""
                        state.lastError =
                            "cannot connect to \(options.host):\(options.port): \(describe(rc, errno: savedErrno))\(detail)"
                    }
                    trouble = troubleCall()
                }
                return (state.connectedThisAttempt, trouble)
            }
            trouble?()
            if reached { delay = 1 }
            lock.locked {
                let deadline = monotonicSeconds() + delay
                while !state.stopping, monotonicSeconds() < deadline {
                    lock.wait(seconds: deadline - monotonicSeconds())
                }
            }
            delay = min(delay * 2, 30)
        }
        lock.locked {
            setConnection(.disconnected)
            state.running = false
            state.networkThread = nil
            lock.broadcast()
        }
    }

    /// Runs libmosquitto's loop on one connection (attempt) until it ends, or for a stop
    /// until the DISCONNECT is written (2 s at most); the last result and errno.
    private func serve(_ handle: OpaquePointer) -> (Int32, Int32) {
        var stopDeadline: Double?
        while true {
            let rc = mosquitto_loop(handle, 500, 1)
            if rc != MOSQ_ERR_SUCCESS.rawValue { return (rc, errno) }
            let stopping: Bool = lock.locked {
                guard state.stopping else { return false }
                if !state.disconnectQueued {
                    state.disconnectQueued = true
                    _ = mosquitto_disconnect(handle)
                }
                return true
            }
            if stopping {
                let deadline = stopDeadline ?? monotonicSeconds() + 2
                stopDeadline = deadline
                if monotonicSeconds() > deadline { return (rc, 0) }
            }
        }
    }

    // MARK: - libmosquitto's callbacks (on the network thread, inside `mosquitto_loop`)

    /// With `lock` held: the trouble handler's call with today's `lastError`, to make unlocked.
    private func troubleCall() -> (@Sendable () -> Void)? {
        guard let handler = state.onTrouble, let error = state.lastError else { return nil }
        return { handler(error) }
    }

    func didConnect(_ handle: OpaquePointer, code: Int32) {
        let handler: (@Sendable () -> Void)? = lock.locked {
            guard code == 0 else {
                state.refusedThisAttempt = true
                state.lastError = "broker refused the connection: \(String(cString: mosquitto_connack_string(code)))"
                return troubleCall()
            }
            if state.everConnected { state.counters.reconnects += 1 }
            state.everConnected = true
            state.connectedThisAttempt = true
            state.lastError = nil
            guard !state.stopping else { return nil }
            setConnection(.connected)
            for subscription in state.subscriptions {
                _ = mosquitto_subscribe(handle, nil, subscription.topic, Int32(subscription.qos))
            }
            return state.onConnect
        }
        handler?()
    }

    func didDisconnect(code: Int32) {
        let trouble: (@Sendable () -> Void)? = lock.locked {
            guard state.connection == .connected else { return nil }
            setConnection(state.stopping ? .disconnected : .connecting)
            guard code != 0, !state.stopping else { return nil }
            state.lastError = "connection to \(options.host):\(options.port) lost: \(describe(code))"
            return troubleCall()
        }
        trouble?()
    }

    func didPublish(mid: Int32) {
        lock.locked {
            state.counters.acknowledged += 1
            if state.waiting[mid] != nil {
                state.waiting[mid] = true
                lock.broadcast()
            }
        }
    }

    /// libmosquitto logs what its error codes leave out (which certificate check failed).
    func didLog(level: Int32, _ text: String) {
        guard level == MOSQ_LOG_ERR else { return }
        lock.locked { state.libraryError = text }
    }

    func didReceive(_ message: Message) {
        let handler = lock.locked {
            state.counters.received += 1
            return state.onMessage
        }
        handler?(message)
    }

    /// Points libmosquitto's callbacks at this client (through the `obj` pointer).
    func installCallbacks(_ handle: OpaquePointer) {
        mosquitto_connect_callback_set(handle) { mosq, obj, code in
            guard let mosq, let obj else { return }
            Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue().didConnect(mosq, code: code)
        }
        mosquitto_disconnect_callback_set(handle) { _, obj, code in
            guard let obj else { return }
            Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue().didDisconnect(code: code)
        }
        mosquitto_publish_callback_set(handle) { _, obj, mid in
            guard let obj else { return }
            Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue().didPublish(mid: mid)
        }
        mosquitto_log_callback_set(handle) { _, obj, level, text in
            guard let obj, let text else { return }
            Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue().didLog(level: level, String(cString: text))
        }
        mosquitto_message_callback_set(handle) { _, obj, message in
            guard let obj, let message, let topic = message.pointee.topic else { return }
            let count = Int(max(message.pointee.payloadlen, 0))
            let payload = message.pointee.payload.map {
                Array(UnsafeRawBufferPointer(start: $0, count: count))
            } ?? []
            Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue().didReceive(
                Message(topic: String(cString: topic), payload: payload, qos: Int(message.pointee.qos), retain: message.pointee.retain))
        }
    }
}
