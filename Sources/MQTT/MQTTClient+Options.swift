import Platform

extension MQTTClient {
    /// Where and as whom to connect: usually parsed from `--mqtt-url`, plus the CA file and the
    /// client id, which the URL does not carry.
    public struct Options: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var tls: Bool
        /// PEM file of the CA(s) to trust for `mqtts`; nil trusts the system's (/etc/ssl/certs).
        public var caFile: String?
        public var username: String?
        public var password: String?
        /// Unique per broker: a second client with the same id makes the broker drop the first.
        public var clientID: String
        /// How often the broker and the client prove to each other that the link is alive
        /// (5…65535 seconds); a dead link is noticed within about twice this.
        public var keepAliveSeconds: Int = 30
        /// Published by the broker when the connection is lost without a clean `stop`.
        public var will: Message?

        public init(
            host: String, port: Int = 1883, tls: Bool = false, caFile: String? = nil,
            username: String? = nil, password: String? = nil, clientID: String,
            keepAliveSeconds: Int = 30, will: Message? = nil
        ) {
            self.host = host
            self.port = port
            self.tls = tls
            self.caFile = caFile
            self.username = username
            self.password = password
            self.clientID = clientID
            self.keepAliveSeconds = keepAliveSeconds
            self.will = will
        }

        /// Parses `mqtt://[user[:pass]@]host[:port]` and `mqtts://…` (default ports 1883 and
        /// 8883, an IPv6 address in brackets, `%XX` escapes in the user and password); throws
        /// with the reason for anything else, never echoing the URL (it may hold a password).
        public static func parse(url: String, clientID: String) throws(MQTTError) -> Options {
            guard let parts = URLParts(url), let tls = ["mqtt": false, "mqtts": true][parts.scheme.lowercased()] else {
                throw MQTTError("MQTT URL must start with mqtt:// or mqtts://")
            }
            // A `/` may end it; whitespace anywhere, or a path, query or fragment, may not.
            let written = (parts.userInfo ?? "") + parts.authority
            if let bad = written.first(where: \.isWhitespace) ?? (parts.rest.isEmpty || parts.rest == "/" ? nil : parts.rest.first) {
                throw MQTTError("MQTT URL may only have user, password, host and port (found \(String(bad).quoted))")
            }
            var options = Options(host: "", port: tls ? 8883 : 1883, tls: tls, clientID: clientID)
            if let user = parts.user {
                guard let name = percentDecoded(user), !name.isEmpty else {
                    throw MQTTError("MQTT URL has an empty or badly escaped user name")
                }
                options.username = name
                if let password = parts.password {
                    guard let password = percentDecoded(password) else {
                        throw MQTTError("MQTT URL has a badly escaped password")
                    }
                    options.password = password
                }
            }
            if parts.authority.first == "[" {
                guard parts.isBracketed else {
                    throw MQTTError("MQTT URL has an IPv6 address without its closing ]")
                }
                let address = parts.host
                guard address.contains(":"), address.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                    throw MQTTError("MQTT URL has an invalid IPv6 address")
                }
                options.host = String(address)
                guard parts.afterHost.isEmpty || parts.port != nil else {
                    throw MQTTError("MQTT URL has text after the IPv6 address")
                }
            } else {
                // A host name has no colon: with more than one, what follows the first is a
                // (bad) port.
                let host = parts.host.prefix { $0 != ":" }
                guard !host.isEmpty, host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }) else {
                    throw MQTTError("MQTT URL has an empty or invalid host name")
                }
                guard host.endIndex == parts.host.endIndex else { throw MQTTError("MQTT URL has an invalid port (1…65535)") }
                options.host = String(host)
            }
            if parts.port != nil {
                guard let port = parts.portNumber else { throw MQTTError("MQTT URL has an invalid port (1…65535)") }
                options.port = port
            }
            try options.validateClientID()
            return options
        }

        /// libmosquitto refuses (and MQTT forbids) an id that is empty, over 65535 bytes or has
        /// control characters.
        func validateClientID() throws(MQTTError) {
            guard !clientID.isEmpty, clientID.utf8.count <= 65535,
                !clientID.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
            else {
                throw MQTTError("MQTT client id \(clientID.quoted) must be 1…65535 bytes without control characters")
            }
        }
    }
}

/// `%XX` escapes decoded; nil for a broken escape or bytes that are not UTF-8.
private func percentDecoded(_ text: Substring) -> String? {
    var bytes: [UInt8] = []
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
        guard byte == UInt8(ascii: "%") else {
            bytes.append(byte)
            continue
        }
        guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
        bytes.append(high << 4 | low)
    }
    return String(validating: bytes, as: UTF8.self)
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

extension String {
    var quoted: String { "\"\(self)\"" }
}
