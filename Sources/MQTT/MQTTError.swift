/// Why an MQTT setting was refused (a bad `--mqtt-url`, an unreadable CA file): the CLI prints
/// `description` as it is.
public struct MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
