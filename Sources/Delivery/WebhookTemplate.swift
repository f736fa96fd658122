import JSON

/// `webhook.body`: a JSON template sent instead of the event, for APIs that are not receivers
/// of events (Home Assistant, Companion; SPEC §5). Checked once at registration, rendered per
/// delivery; the rendered bytes are what gets signed and sent on every attempt.
public struct WebhookTemplate: Sendable, Equatable {
    public let template: JSONValue

    public static let maxEncodedBytes = 16 * 1024
    /// Containers inside containers, counted as `JSONParser` counts them (a scalar is 0).
    public static let maxDepth = 16

    /// Any JSON value is a template; only its encoded size and its nesting are limited.
    public init(_ template: JSONValue) throws(TemplateError) {
        guard !Self.nests(template, deeperThan: Self.maxDepth) else {
            throw TemplateError(message: "webhook.body is nested deeper than \(Self.maxDepth) levels")
        }
        guard JSONWriter.encode(template).count <= Self.maxEncodedBytes else {
            throw TemplateError(message: "webhook.body is over \(Self.maxEncodedBytes) bytes when encoded")
        }
        self.template = template
    }

    /// The body to send: every string value (object keys are left alone) interpolated with
    /// `fields`, a string that is exactly one numeric placeholder (`{face}`, `{seq}`, `{t}`,
    /// `{index}`) sent as a number, and a string that is exactly `"{event}"` replaced by `event` whole. Keys are
    /// written sorted, so the same inputs always give the same bytes.
    public func render(_ fields: Placeholders, event: JSONValue) -> [UInt8] {
        JSONWriter.encode(Self.fill(template, fields, event))
    }

    private static func fill(_ value: JSONValue, _ fields: Placeholders, _ event: JSONValue) -> JSONValue {
        switch value {
        case .string("{event}"): event
        case .string(let text): fields.number(text).map { .int($0) } ?? .string(fields.interpolate(text))
        case .array(let elements): .array(elements.map { fill($0, fields, event) })
        case .object(let members): .object(members.mapValues { fill($0, fields, event) })
        case .null, .bool, .int, .double: value
        }
    }

    /// Stops at the limit, so a value built deeper than any parser allows costs no more.
    private static func nests(_ value: JSONValue, deeperThan limit: Int) -> Bool {
        switch value {
        case .array(let elements): limit == 0 || elements.contains { nests($0, deeperThan: limit - 1) }
        case .object(let members): limit == 0 || members.values.contains { nests($0, deeperThan: limit - 1) }
        case .null, .bool, .int, .double, .string: false
        }
    }
}

/// Why a `webhook.body` template was refused; the message is meant for the 422 response.
public struct TemplateError: Error, Sendable, Equatable {
    public var message: String

    public init(message: String) { self.message = message }
}
