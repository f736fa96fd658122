// swift-tools-version:6.0
import PackageDescription

// Release builds check exclusive access at compile time only: the run-time check of every
// class property and global a press touches was 2.5 k instructions a press (swift_beginAccess).
// Debug builds, which the tests run, keep the run-time check.
let strict: [SwiftSetting] = [
    .unsafeFlags(["-warnings-as-errors"]),
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
]

/// The modules a press runs through on the HTTP workers also offer their bodies to the modules
/// that call them (full cross-module optimization), so small functions across a module
/// boundary are inlined and generic ones specialized.
let inlinable: [SwiftSetting] = strict + [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

let package = Package(
    name: "buttond",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "buttond", targets: ["buttond"]),
    ],
    targets: [
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .target(
            name: "CMicroHTTPDShims", dependencies: ["CMicroHTTPD"],
            cSettings: [.unsafeFlags(["-Wall", "-Werror"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .systemLibrary(name: "COSC", pkgConfig: "liblo", providers: [.apt(["liblo-dev"])]),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .target(name: "Platform", swiftSettings: inlinable),
        .target(name: "JSON", swiftSettings: inlinable),
        .target(name: "Logging", dependencies: ["Platform", "ThreadSupport"], swiftSettings: inlinable),
        .target(
            name: "MicroHTTP",
            dependencies: ["Platform", "CMicroHTTPD", "CMicroHTTPDShims", "JSON", "ThreadSupport"],
            swiftSettings: inlinable
        ),
        // Pure: the gesture machines and the events' JSON (JSON, and Platform's ISO-8601 `at`), no clock read, no I/O.
        .target(name: "ButtonEngine", dependencies: ["Platform", "JSON"], swiftSettings: strict),
        // A delivery's values (row, event facts, status, attempts): persisted by ButtonStore, sent by Delivery.
        .target(name: "Outbox", dependencies: ["ButtonEngine", "ThreadSupport"], swiftSettings: strict),
        .target(
            name: "ButtonStore",
            dependencies: ["Platform", "CSQLite", "ThreadSupport", "ButtonEngine", "JSON", "Outbox"],
            swiftSettings: strict
        ),
        .target(name: "ThreadSupport", dependencies: ["Platform", "CProcessShims"], swiftSettings: inlinable),
        .target(name: "CProcessShims", cSettings: [.unsafeFlags(["-Wall", "-Werror"])]),
        .target(
            name: "Delivery",
            dependencies: ["Platform", "Outbox", "JSON", "CurlHTTP", "COpenSSL", "CProcessShims", "ThreadSupport", "OSC"],
            swiftSettings: strict
        ),
        .target(name: "CurlHTTP", dependencies: ["Platform", "CCurl", "JSON", "ThreadSupport"], swiftSettings: strict),
        .target(name: "MQTT", dependencies: ["Platform", "CMosquitto", "ThreadSupport"], swiftSettings: strict),
        .target(name: "OSC", dependencies: ["Platform", "COSC", "ThreadSupport"], swiftSettings: strict),
        // QR codes (the kiosk link) by libqrencode.
        .target(name: "QRCode", dependencies: ["Platform", "CQREncode"], swiftSettings: strict),
        .target(
            name: "Buttons",
            dependencies: ["Platform", "ButtonEngine", "ButtonStore", "Outbox", "JSON", "ThreadSupport"],
            swiftSettings: strict
        ),
        .target(
            name: "Handlers",
            dependencies: ["Platform", "ButtonEngine", "ButtonStore", "Buttons", "Delivery", "Outbox", "JSON", "OSC", "ThreadSupport"],
            swiftSettings: strict
        ),
        .target(
            name: "Bridges",
            dependencies: ["Platform", "Buttons", "ButtonEngine", "ButtonStore", "Outbox", "Delivery", "JSON", "Logging", "MQTT", "OSC", "ThreadSupport"],
            swiftSettings: strict
        ),
        // Config as code: the registry as one document (export, parse, plan, apply).
        .target(
            name: "Config", dependencies: ["Buttons", "ButtonEngine", "ButtonStore", "Handlers", "Delivery", "JSON", "Logging"],
            swiftSettings: strict),
        .target(name: "TLSCertificates", dependencies: ["Platform", "COpenSSL", "MicroHTTP"], swiftSettings: strict),
        .target(
            name: "ButtonServer",
            dependencies: [
                "Platform", "MicroHTTP", "Buttons", "Handlers", "Config", "ButtonEngine", "ButtonStore", "Outbox", "Delivery", "Bridges",
                "TLSCertificates", "Logging", "ThreadSupport", "QRCode",
            ],
            swiftSettings: strict,
            plugins: ["EmbedDocument"]
        ),
        // docs/openapi.json, embedded in ButtonServer at build time.
        .executableTarget(name: "embed-document", dependencies: ["Platform"], path: "Tools/embed-document", swiftSettings: strict),
        .plugin(name: "EmbedDocument", capability: .buildTool(), dependencies: ["embed-document"]),
        .target(
            name: "ButtondCLI",
            dependencies: ["Platform", "ButtonServer", "ButtonStore", "CurlHTTP", "MicroHTTP", "Logging"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "buttond",
            dependencies: ["Platform", "ButtonServer", "ButtondCLI"],
            swiftSettings: strict,
            // mimalloc (Debian's libmimalloc) replaces glibc's malloc for the whole process: a
            // press allocates on a worker and frees on the writer, which glibc's arenas pay for
            // with locks and consolidation (docs/performance.md).
            linkerSettings: [.linkedLibrary("mimalloc")]
        ),
        .executableTarget(
            name: "engine-bench",
            dependencies: ["ButtonEngine"],
            path: "bench/engine",
            swiftSettings: strict
        ),
        .target(name: "TestSupport", dependencies: ["Platform", "CurlHTTP", "ThreadSupport"], path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "PlatformTests", dependencies: ["Platform"], swiftSettings: strict),
        .testTarget(name: "LoggingTests", dependencies: ["Logging", "Platform"], swiftSettings: strict),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ThreadSupportTests", dependencies: ["ThreadSupport", "Platform"], swiftSettings: strict),
        .testTarget(name: "CurlHTTPTests", dependencies: ["Platform", "CurlHTTP", "CCurl", "MicroHTTP", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "MicroHTTPTests", dependencies: ["Platform", "MicroHTTP", "CurlHTTP", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ButtonEngineTests", dependencies: ["ButtonEngine", "JSON", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "DeliveryTests", dependencies: ["Delivery", "Outbox", "ButtonStore", "Handlers", "MicroHTTP", "CurlHTTP", "ThreadSupport", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ButtonStoreTests", dependencies: ["ButtonStore", "ButtonEngine", "Outbox", "Handlers", "CSQLite", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "MQTTTests", dependencies: ["Platform", "MQTT", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "OSCTests", dependencies: ["Platform", "OSC", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "QRCodeTests", dependencies: ["Platform", "QRCode"], swiftSettings: strict),
        .testTarget(
            name: "ButtonsTests", dependencies: ["Buttons", "ButtonEngine", "ButtonStore", "Outbox", "JSON", "CSQLite"], swiftSettings: strict),
        .testTarget(name: "OutboxTests", dependencies: ["Outbox", "ButtonEngine"], swiftSettings: strict),
        .testTarget(
            name: "HandlersTests",
            dependencies: ["Handlers", "ButtonEngine", "ButtonStore", "Buttons", "Delivery", "JSON", "Outbox"],
            swiftSettings: strict),
        .testTarget(
            name: "BridgesTests",
            dependencies: ["Bridges", "Buttons", "ButtonEngine", "ButtonStore", "Delivery", "JSON", "MQTT", "OSC", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "TLSCertificatesTests", dependencies: ["TLSCertificates", "MicroHTTP", "CurlHTTP", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "ButtondCLITests", dependencies: ["ButtondCLI", "ButtonServer", "CurlHTTP", "JSON", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "ButtonServerTests",
            dependencies: [
                "ButtonServer", "Buttons", "ButtonStore", "Handlers", "Config", "MicroHTTP", "CSQLite", "CurlHTTP", "TestSupport", "ButtondCLI",
                "OSC", "Bridges", "Delivery",
            ],
            swiftSettings: strict
        ),
    ]
)
