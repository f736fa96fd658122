extension MQTTClient {
    /// One publication: what `publish`, `send`, `stop(final:)` and the last will carry.
    public struct Message: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
        /// 0, 1 or 2 (`publish` always uses at least 1).
        public var qos: Int
        /// The broker keeps the last retained message of a topic for every later subscriber.
        public var retain: Bool

        public init(topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = false) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
        }

        /// A UTF-8 text payload (status words, JSON documents).
        public init(topic: String, text: String, qos: Int = 1, retain: Bool = false) {
            self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
        }
    }
}
