import Outbox
import JSON
import OSC
import Platform

/// Sends an OSC handler's deliveries (SPEC §10): each row's message rendered from its event
/// (placeholders in the address and string arguments; an argument that is exactly one
/// placeholder converted to its type), the host resolved here and checked against the
/// destination rules, then sent by liblo. UDP is done once the datagram is out; a TCP connect
/// or send failure is a `connect` outcome, retried on the handler's schedule.
struct OSCSender: BlockingDeliverySender {
    let osc: OSCAction
    let rules: @Sendable () -> DestinationRules
    /// The sockets and TCP connections of this dispatcher's OSC handlers.
    let client: OSCClient
    let threads: DeliveryThreads
    let kind = "osc"
    var destination: String { DestinationSlots.destination(webhook: osc.url) }

    func sendWaiting(_ rows: [DeliveryRow]) -> [AttemptResult] {
        let rules = rules()
        return rows.map { row in send(Self.message(osc, fields: Placeholders(row.event)), rules: rules) }
    }

    private func send(_ message: OSCMessage, rules: DestinationRules) -> AttemptResult {
        guard let destination = OSCClient.Destination(url: osc.url) else {
            return AttemptResult(outcome: .refused, output: "not sent: \(osc.url) is not an osc.udp:// or osc.tcp:// URL")
        }
        let address: [UInt8]
        switch Self.resolve(destination.host) {
        case .failure(let error): return AttemptResult(outcome: .connect, output: error.description)
        case .success(let resolved): address = resolved
        }
        if let reason = rules.refusal(address: address, port: destination.port) {
            return AttemptResult(outcome: .blocked, output: "not sent: the host resolves to \(reason)")
        }
        let host = Self.text(address)
        switch client.send(message, transport: destination.transport, host: host, port: destination.port, slip: osc.slip) {
        case .success: return AttemptResult(outcome: .ok, output: "sent \(message.address) ,\(message.typeTags) to \(host):\(destination.port)")
        case .failure(let error): return AttemptResult(outcome: .connect, output: error.description)
        }
    }

    /// The message a delivery sends, rendered from its event's placeholders.
    static func message(_ osc: OSCAction, fields: Placeholders) -> OSCMessage {
        OSCMessage(fields.interpolate(osc.address), osc.args.map { argument($0, fields: fields) })
    }

    /// One argument of its type. A string value is the template: whole for a string argument,
    /// else converted (text that is no number of the type, e.g. `{face}` of an event with no
    /// face, is 0; for `T`/`F`/`N` the value is not used).
    static func argument(_ arg: OSCAction.Argument, fields: Placeholders) -> OSCArgument {
        var text: String?
        if case .string(let template) = arg.value { text = fields.interpolate(template) }
        let number: Double? = text.map { Double($0) } ?? {
            switch arg.value {
            case .int(let v): Double(v)
            case .double(let v): v
            case .bool(let v): v ? 1 : 0
            default: nil
            }
        }()
        let integer: Int64? = text.flatMap { Int64($0) } ?? number.flatMap { $0.isFinite ? Int64(exactly: $0.rounded(.towardZero)) : nil }
        switch arg.type {
        case "i": return .int32(Int32(clamping: integer ?? 0))
        case "h": return .int64(integer ?? 0)
        case "f": return .float(Float(number ?? 0))
        case "d": return .double(number ?? 0)
        case "s": return .string(text ?? String(decoding: JSONWriter.encode(arg.value), as: UTF8.self))
        case "T": return .bool(true)
        case "F": return .bool(false)
        default: return .null
        }
    }

    /// The first address of `host` (a literal, or a name getaddrinfo resolves).
    static func resolve(_ host: String) -> Result<[UInt8], OSCError> {
        if let literal = DestinationRules.literalAddress(host) { return .success(literal) }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else { return .failure(OSCError("could not resolve \(host): \(String(cString: gai_strerror(status)))")) }
        defer { freeaddrinfo(list) }
        guard let socket = first.pointee.ai_addr else { return .failure(OSCError("could not resolve \(host)")) }
        switch Int32(socket.pointee.sa_family) {
        case AF_INET:
            let address = socket.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            return .success(withUnsafeBytes(of: address) { Array($0) })
        default:
            let address = socket.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            return .success(withUnsafeBytes(of: address) { Array($0) })
        }
    }

    static func text(_ address: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        _ = address.withUnsafeBytes { inet_ntop(address.count == 4 ? AF_INET : AF_INET6, $0.baseAddress, &buffer, 64) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
