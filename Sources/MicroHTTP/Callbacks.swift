import CMicroHTTPD
import CMicroHTTPDShims
import FoundationEssentials
import Platform

// libmicrohttpd's callbacks. They live in this library file, not in main.swift, so they are
// not main-actor isolated: libmicrohttpd calls them on its own threads.

/// Per-request state kept across libmicrohttpd's repeated calls while the body arrives.
final class RequestContext {
    var body: [UInt8] = []
    var tooLarge = false
    var discarded = 0
    var answered = false
    /// Who the route guard admitted, for the request's record.
    var principal: RequestPrincipal?
    /// Set while the handler's answer is being produced elsewhere (the connection is suspended).
    var pending: (response: PendingResponse, route: String, method: String, path: String)?
    /// The request is HTTP/1.1, whose streamed answers libmicrohttpd sends in chunks.
    var http11 = false
    /// An origin allowed by `--allow-origin` that its answer names (CORS).
    var crossOrigin: String?
    /// When the request began, in seconds on the server's monotonic clock.
    let start: Double

    init(start: Double) { self.start = start }
}

/// The request's method as a string: a constant for the methods the API has (no UTF-8 check,
/// no copy), any other copied.
private func methodString(_ method: UnsafePointer<CChar>?) -> String {
    guard let method else { return "" }
    if strcmp(method, "POST") == 0 { return "POST" }
    if strcmp(method, "GET") == 0 { return "GET" }
    if strcmp(method, "PUT") == 0 { return "PUT" }
    if strcmp(method, "DELETE") == 0 { return "DELETE" }
    return String(cString: method)
}

private func lookup(_ connection: OpaquePointer, _ kind: MHD_ValueKind, _ key: String) -> String? {
    guard let value = MHD_lookup_connection_value(connection, kind, key) else { return nil }
    return String(cString: value)
}

/// The values of `kind` (query arguments) by name, and the first name that came twice (SPEC §6:
/// a repeated parameter is refused, not silently decided by the last one).
private func collect(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> (values: [String: String], repeated: String?) {
    // Counted first: nearly every request has none, and the box and its dictionary cost more.
    guard MHD_get_connection_values(connection, kind, nil, nil) > 0 else { return ([:], nil) }
    final class Box {
        var values: [String: String] = [:]
        var repeated: String?
    }
    let box = Box()
    let iterator: MHD_KeyValueIterator = { cls, _, key, value in
        let box = Unmanaged<Box>.fromOpaque(cls!).takeUnretainedValue()
        guard let key else { return .YES }
        let name = String(cString: key)
        if box.values.updateValue(value.map { String(cString: $0) } ?? "", forKey: name) != nil, box.repeated == nil {
            box.repeated = name
        }
        return .YES
    }
    withExtendedLifetime(box) {
        _ = MHD_get_connection_values(connection, kind, iterator, Unmanaged.passUnretained(box).toOpaque())
    }
    return (box.values, box.repeated)
}

private func queue(_ response: Response, on connection: OpaquePointer, context: RequestContext, server: HTTPServer) -> MHD_Result {
    let handle: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
        handle = bytes.withUnsafeBytes { raw in
            MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
        }
    case .stream(let stream):
        handle = MHD_create_response_from_callback(
            UInt64.max, 4096, streamReader, Unmanaged.passRetained(stream).toOpaque(), streamFreed)
        // Chunks the stream may write itself: an HTTP/1.1 connection kept open (neither side
        // closing, so libmicrohttpd frames the body in chunks), without TLS.
        let closes = server.isStopping || (lookup(connection, .HEADER_KIND, "Connection")?.lowercased().contains("close") ?? false)
        server.streams.attach(stream, to: connection, direct: context.http11 && !closes && bd_connection_is_plain(connection) != 0)
    case .pending:
        // `answer` waits for a pending response's real answer; one never reaches here.
        handle = nil
    }
    guard let handle else { return .NO }
    server.defaultHeaders.withUnsafeBufferPointer { pairs in
        bd_add_response_headers(handle, pairs.baseAddress, server.configuration.defaultHeaders.count)
    }
    if let origin = context.crossOrigin {
        MHD_add_response_header(handle, "Access-Control-Allow-Origin", origin)
        MHD_add_response_header(handle, "Access-Control-Expose-Headers", "Location, Retry-After")
        MHD_add_response_header(handle, "Vary", "Origin")
    }
    for (name, value) in response.headers {
        // `withCString` lends a native string's own bytes; passing the strings as pointers
        // would copy each into a new array first.
        name.withCString { name in value.withCString { value in _ = MHD_add_response_header(handle, name, value) } }
    }
    // Stopping: this answer is the connection's last, so no new request begins on it.
    if server.isStopping { MHD_add_response_header(handle, "Connection", "close") }
    let result = MHD_queue_response(connection, UInt32(response.status), handle)
    MHD_destroy_response(handle)
    return result
}

private func answer(
    _ response: Response, route: String, method: String, path: String,
    context: RequestContext, connection: OpaquePointer, server: HTTPServer
) -> MHD_Result {
    bd_request_read(connection)
    if case .pending(let pending) = response.body {
        context.pending = (pending, route, method, path)
        server.pendingStarted()
        return awaitPending(context: context, connection: connection, server: server)
    }
    context.answered = true
    let result = queue(response, on: connection, context: context, server: server)
    let elapsed = server.clock.monotonic() - context.start
    server.record(
        RequestRecord(
            method: method, path: path, route: route, status: response.status, durationSeconds: elapsed,
            remoteAddress: server.configuration.recordsRemoteAddress ? server.clientAddress(connection) : "", principal: context.principal))
    return result
}

/// Queues a pending response's answer if it has arrived; otherwise the connection stays
/// suspended and libmicrohttpd calls the access handler again once it is resumed.
private func awaitPending(context: RequestContext, connection: OpaquePointer, server: HTTPServer) -> MHD_Result {
    guard let (pending, route, method, path) = context.pending else { return .YES }
    let response: Response
    if server.isStopping {
        // No new suspension once stopping began: wait here for the answer (it is near).
        response = pending.waitForResponse()
    } else if let ready = pending.responseOrSuspend(connection, suspension: server.streams.suspension) {
        response = ready
    } else {
        return .YES
    }
    context.pending = nil
    server.pendingFinished()
    if case .pending = response.body {
        return answer(
            HTTPError(500, code: "internal", message: "internal error").response, route: route, method: method,
            path: path, context: context, connection: connection, server: server)
    }
    return answer(response, route: route, method: method, path: path, context: context, connection: connection, server: server)
}

/// Whether a request context is the URI check's mark of a request line refused before parsing.
private func isURIMarker(_ context: UnsafeMutableRawPointer) -> Bool {
    context == bd_too_many_parameters() || context == bd_query_too_long() || context == bd_bad_target()
}

/// The error for a request line the URI check marked.
private func uriRefusal(_ marker: UnsafeMutableRawPointer, server: HTTPServer) -> HTTPError {
    switch marker {
    case bd_too_many_parameters():
        HTTPError(
            414, code: "too_many_parameters",
            message: "the query has more than \(server.configuration.maxQueryParameters) parameters")
    case bd_query_too_long():
        HTTPError(414, code: "query_too_long", message: "the query is longer than \(BD_MAX_QUERY_BYTES) bytes")
    default:
        HTTPError(400, code: "bad_request", message: "the request target holds a space, a NUL or another control byte")
    }
}

/// The error for a request whose framing a careful server refuses (SPEC §6), or nil;
/// `declaredLength` is set to its Content-Length, or -1 when it declares none (read in the
/// same walk over the headers).
private func framingRefusal(
    _ connection: OpaquePointer, _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, declaredLength: inout Int64
) -> HTTPError? {
    let problem = bd_framing_problem(connection, method, version, &declaredLength)
    let message: String
    switch Int(problem) {
    case Int(BD_FRAMING_OK): return nil
    case Int(BD_FRAMING_HEADER_NAME): message = "a header name holds whitespace or a character a name may not have"
    case Int(BD_FRAMING_HEADER_VALUE): message = "a header value holds a control character (a bare CR, say)"
    case Int(BD_FRAMING_LINE): message = "a line of the head holds a NUL, is folded, or does not end with CRLF"
    case Int(BD_FRAMING_TWO_LENGTHS): message = "the request has more than one Content-Length"
    case Int(BD_FRAMING_LENGTH_AND_CODING): message = "the request has both Content-Length and Transfer-Encoding"
    case Int(BD_FRAMING_CODING): message = "the only transfer coding accepted is chunked"
    case Int(BD_FRAMING_CODING_ON_HTTP10): message = "an HTTP/1.0 request may not have a Transfer-Encoding"
    case Int(BD_FRAMING_TWO_HOSTS): message = "the request has more than one Host header"
    case Int(BD_FRAMING_TWO_ORIGINS): message = "the request has more than one Origin header"
    default: message = "an HTTP/1.1 request needs exactly one Host header"
    }
    return HTTPError(400, code: "bad_request", message: message)
}

let accessHandler: MHD_AccessHandlerCallback = {
    cls, connection, url, method, version, uploadData, uploadDataSize, requestContext in
    guard let cls, let connection, let requestContext, let uploadDataSize else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let limit = server.configuration.maxBodyBytes

    guard let opaque = requestContext.pointee, !isURIMarker(opaque) else {
        let marker = requestContext.pointee
        let context = RequestContext(start: server.clock.monotonic())
        context.http11 = version.map { strcmp($0, "HTTP/1.1") == 0 } ?? false
        requestContext.pointee = Unmanaged.passRetained(context).toOpaque()
        var declaredLength: Int64 = -1
        if let refusal = server.connectionRefusal(connection) ?? marker.map({ uriRefusal($0, server: server) })
            ?? framingRefusal(connection, method, version, declaredLength: &declaredLength)
        {
            var response = refusal.response
            response.headers.append(("Connection", "close"))
            return answer(
                response, route: String(refusal.status), method: methodString(method),
                path: url.map { String(cString: $0) } ?? "", context: context, connection: connection, server: server)
        }
        if declaredLength > Int64(limit) {
            return answer(
                HTTPError.payloadTooLarge(limit: limit).response, route: "413",
                method: methodString(method), path: url.map { String(cString: $0) } ?? "",
                context: context, connection: connection, server: server)
        }
        return .YES
    }
    let context = Unmanaged<RequestContext>.fromOpaque(opaque).takeUnretainedValue()
    if context.pending != nil {
        uploadDataSize.pointee = 0
        return awaitPending(context: context, connection: connection, server: server)
    }
    if context.answered {
        uploadDataSize.pointee = 0
        return .YES
    }
    let size = uploadDataSize.pointee
    if size > 0 {
        if context.tooLarge {
            // No declared length (chunked) and over the limit: the rest is read and dropped so
            // the client sees the 413 (closing on unread data would reset the connection), but
            // only up to 16 times the limit; past that it is refused at once.
            context.discarded += size
            if context.discarded > 16 * limit {
                uploadDataSize.pointee = 0
                return answer(
                    HTTPError.payloadTooLarge(limit: limit).response, route: "413",
                    method: methodString(method), path: url.map { String(cString: $0) } ?? "",
                    context: context, connection: connection, server: server)
            }
        } else if let uploadData {
            if context.body.count + size > limit {
                context.tooLarge = true
                context.discarded = context.body.count + size
                context.body = []
            } else {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: size) { bytes in
                    context.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: size))
                }
            }
        }
        uploadDataSize.pointee = 0
        return .YES
    }

    let methodName = methodString(method)
    let path = url.map { String(cString: $0) } ?? "/"
    if context.tooLarge {
        return answer(
            HTTPError.payloadTooLarge(limit: limit).response, route: "413", method: methodName, path: path,
            context: context, connection: connection, server: server)
    }
    let (query, repeated) = collect(connection, .GET_ARGUMENT_KIND)
    if let repeated {
        let refusal = HTTPError(
            400, code: "duplicate_parameter", message: "the query parameter '\(repeated)' is given more than once",
            details: ["parameter": .string(repeated)])
        var response = refusal.response
        response.headers.append(("Connection", "close"))
        return answer(
            response, route: "400", method: methodName, path: path, context: context, connection: connection, server: server)
    }
    let request = Request(
        method: methodName, path: path,
        query: query, headers: Headers(of: connection),
        body: context.body, remoteAddress: "")
    context.body = []
    // Each field read where it is used: a local copy of the configuration retained and
    // released every string and array in it, on every request. `Origin` is looked up once.
    let origin = request.headers["origin"]
    if let refusal = server.configuration.gate.refusal(
        host: request.headers["host"], origin: origin, boundHost: server.configuration.host,
        tls: server.configuration.tls != nil, clock: server.clock)
    {
        var response = refusal.response
        // A misdirected request (RFC 9110 §15.5.20) is retried on another connection: nothing
        // pipelined behind a Host this server refuses is read as if it came to it.
        if refusal.status == 421 { response.headers.append(("Connection", "close")) }
        return answer(
            response, route: String(refusal.status), method: methodName, path: path, context: context,
            connection: connection, server: server)
    }
    if let origin = server.configuration.gate.crossOrigin(origin) {
        context.crossOrigin = origin
        if methodName == "OPTIONS", request.headers["access-control-request-method"] != nil {
            return answer(
                Response(status: 204, headers: RequestGate.preflightHeaders, body: .bytes([])), route: "preflight",
                method: methodName, path: path, context: context, connection: connection, server: server)
        }
    }
    let routed = server.router.route(consume request)
    context.principal = routed.principal
    return answer(
        routed.response, route: routed.route, method: methodName, path: path, context: context, connection: connection,
        server: server)
}

let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, requestContext, _ in
    if let connection { bd_request_ended(connection) }
    guard let requestContext, let opaque = requestContext.pointee, !isURIMarker(opaque) else { return }
    let context = Unmanaged<RequestContext>.fromOpaque(opaque).takeRetainedValue()
    if context.pending != nil, let cls {
        // The client left while its answer was being produced: nobody will queue it.
        Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().pendingFinished()
    }
    requestContext.pointee = nil
}

let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return -2 }
    let stream = Unmanaged<EventStream>.fromOpaque(cls).takeUnretainedValue()
    return stream.read(into: buffer, max: max)
}

let streamFreed: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let stream = Unmanaged<EventStream>.fromOpaque(cls).takeRetainedValue()
    stream.closed()
}

/// A libmicrohttpd handle (daemon or connection). C pointers are not Sendable; this one may
/// cross threads because libmicrohttpd allows these calls from any thread, and every use of a
/// connection handle is serialized by `StreamHub`'s lock.
struct CHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
