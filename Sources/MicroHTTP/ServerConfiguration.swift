import CMicroHTTPDShims

/// Where the server listens and the limits that keep one client from starving the rest.
public struct ServerConfiguration: Sendable {
    public var host: String = "127.0.0.1"
    /// 0 picks a free port; read it back from `HTTPServer.port`.
    public var port: Int = 8080
    /// libmicrohttpd worker threads, each with its own poll loop: by default one a usable CPU,
    /// at least 2 (one blocked in a registry change leaves another) and at most 64. More
    /// threads than cores only switch more (on 2 vCPUs, 4 threads cost a press 9 % more CPU
    /// than 2).
    public var threads: Int = Self.defaultThreads

    public static var defaultThreads: Int { min(64, max(2, Int(bd_usable_cpus()))) }
    /// Request bodies over this are refused with 413 (before they are read when the length is declared).
    public var maxBodyBytes: Int = 64 * 1024
    public var connectionLimit: Int = 1000
    /// Small enough that a few addresses cannot fill the server (SPEC §6). A connection over
    /// this or `connectionLimit` is answered 503 `too_many_connections`, not dropped.
    public var perIPConnectionLimit: Int = 64
    /// Reverse proxies (`--trusted-proxy`): no per-address limit for them, and the request
    /// log's remote address is the client their `X-Forwarded-For` names.
    public var trustedProxies: [AddressRange] = []
    public var idleTimeoutSeconds: Int = 30
    /// Memory for one connection's request line and headers; more gets 431.
    public var connectionMemoryLimit: Int = 32 * 1024
    public var maxStreams: Int = 500
    public var heartbeatSeconds: Double = 15
    public var listenBacklog: Int = 1024
    /// Query parameters one request may have; more gets 414 (libmicrohttpd parses them into
    /// the connection's memory, and a few hundred would leave it no room to answer at all).
    public var maxQueryParameters: Int = 100
    /// Seconds a connection may take to send a whole request, head and body (from when it
    /// opens, or its last request ended); later, it is closed. libmicrohttpd's idle timeout
    /// alone lets a client that sends a byte every few seconds hold a connection for ever.
    /// When the server is three quarters full, the deadline is 2 s. 0: no deadline.
    public var requestDeadlineSeconds: Int = 10
    /// How long a stop waits for the requests under way to be read and answered (SPEC §2).
    public var drainSeconds: Double = 5
    /// HTTPS through libmicrohttpd's TLS (PEM text); nil serves plain HTTP.
    public var tls: TLSCredentials?

    public struct TLSCredentials: Sendable, Equatable {
        public var certificatePEM: String
        public var keyPEM: String
        public var keyPassword: String?

        public init(certificatePEM: String, keyPEM: String, keyPassword: String? = nil) {
            self.certificatePEM = certificatePEM
            self.keyPEM = keyPEM
            self.keyPassword = keyPassword
        }
    }
    /// Which `Host` and `Origin` headers are answered (SPEC §6).
    public var gate = RequestGate()
    /// Who may frame the panel: CSP `frame-ancestors` sources; `'self'` alone also sends
    /// `X-Frame-Options: SAMEORIGIN` (for browsers that know only that).
    public var frameAncestors = "'self'" {
        didSet { defaultHeaders = Self.headers(frameAncestors: frameAncestors) }
    }
    /// Headers added to every response (SPEC §6).
    public private(set) var defaultHeaders = headers(frameAncestors: "'self'")

    static func headers(frameAncestors: String) -> [(String, String)] {
        var headers = [
            ("Content-Security-Policy", "default-src 'self'; frame-ancestors \(frameAncestors)"),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
        ]
        if frameAncestors == "'self'" { headers.append(("X-Frame-Options", "SAMEORIGIN")) }
        return headers
    }

    /// Whether `RequestRecord.remoteAddress` is filled in (it costs a lookup per request;
    /// only request logs need it).
    public var recordsRemoteAddress = true

    public init() {}
}

/// What the server reports about each finished request, for logs and metrics.
public struct RequestRecord: Sendable {
    public var method: String
    public var path: String
    public var route: String
    public var status: Int
    public var durationSeconds: Double
    public var remoteAddress: String
    /// Who the route guard admitted, if it asked for anything.
    public var principal: RequestPrincipal?
}
