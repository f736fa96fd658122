/// One block of a server-sent event stream: a message, or a comment (a heartbeat).
public struct EventMessage: Sendable, Equatable {
    public var id: String?
    public var event: String?
    public var data: String
    /// True for a block of comment lines only (`: heartbeat`).
    public var comment: Bool

    public init(id: String? = nil, event: String? = nil, data: String = "", comment: Bool = false) {
        self.id = id
        self.event = event
        self.data = data
        self.comment = comment
    }

    /// Cuts the blocks out of a stream's bytes as they arrive, however they are split.
    public struct Parser: Sendable {
        private var pending: [UInt8] = []

        public init() {}

        /// The blocks that `chunk` completes, in order.
        public mutating func take(_ chunk: some Sequence<UInt8>) -> [EventMessage] {
            pending.append(contentsOf: chunk)
            var messages: [EventMessage] = []
            var start = 0
            var i = 0
            while i + 1 < pending.count {
                if pending[i] == 0x0A && pending[i + 1] == 0x0A {
                    messages.append(Self.message(pending[start..<i]))
                    start = i + 2
                    i = start
                } else {
                    i += 1
                }
            }
            pending.removeFirst(start)
            return messages
        }

        static func message(_ block: ArraySlice<UInt8>) -> EventMessage {
            var message = EventMessage()
            var data: [String] = []
            var comments = 0
            let text = String(decoding: block, as: UTF8.self)
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") {
                    comments += 1
                } else if let value = Self.value(line, field: "id") {
                    message.id = value
                } else if let value = Self.value(line, field: "event") {
                    message.event = value
                } else if let value = Self.value(line, field: "data") {
                    data.append(value)
                }
            }
            message.data = data.joined(separator: "\n")
            message.comment = comments > 0 && data.isEmpty && message.id == nil && message.event == nil
            return message
        }

        /// The value of a `field: value` line (one space after the colon is not part of it).
        private static func value(_ line: Substring, field: String) -> String? {
            guard line.hasPrefix(field + ":") else { return nil }
            let rest = line.dropFirst(field.count + 1)
            return String(rest.first == " " ? rest.dropFirst() : rest)
        }
    }
}
