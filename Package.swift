// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [.unsafeFlags(["-warnings-as-errors"])]

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
        .target(name: "CMicroHTTPDShims", dependencies: ["CMicroHTTPD"]),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "MicroHTTP",
            dependencies: ["CMicroHTTPD", "CMicroHTTPDShims"],
            swiftSettings: strict
        ),
        .target(name: "ButtonEngine", swiftSettings: strict),
        .target(
            name: "ButtonStore",
            dependencies: ["ButtonEngine", "CSQLite"],
            swiftSettings: strict
        ),
        .target(
            name: "ButtonServer",
            dependencies: ["MicroHTTP", "ButtonEngine", "ButtonStore"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "buttond",
            dependencies: ["ButtonServer"],
            swiftSettings: strict
        ),
        .target(name: "HTTPTestSupport", dependencies: ["MicroHTTP"], path: "Tests/HTTPTestSupport", swiftSettings: strict),
        .testTarget(name: "MicroHTTPTests", dependencies: ["MicroHTTP", "HTTPTestSupport"], swiftSettings: strict),
        .testTarget(name: "ButtonEngineTests", dependencies: ["ButtonEngine"], swiftSettings: strict),
        .testTarget(
            name: "ButtonServerTests",
            dependencies: ["ButtonServer", "MicroHTTP", "HTTPTestSupport"],
            swiftSettings: strict
        ),
    ]
)
