// swift-tools-version:6.0
import PackageDescription

/// Spotter: an offline-first terminal fitness logger with an outbox sync engine.
/// Module layering (arrows point down only; docs/architecture.md draws them):
/// Core ← Protocol, Store ← Sync ← TUI ← spotter; Server knows Core and Protocol only.
/// The benchmark suite (SpotterBench) is its own binary, spotter-bench: `spotter` links none of it.
let package = Package(
    name: "Spotter",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "spotter", targets: ["spotter"]),
        .executable(name: "spotter-bench", targets: ["spotter-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // Hummingbird's own dependencies, named because the server imports them directly.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CNcursesw",
            pkgConfig: "ncursesw",
            providers: [.apt(["libncursesw5-dev"])]
        ),
        // The UI's crash guard: a fatal signal handler has to be C (async-signal-safe calls only).
        .target(name: "CTerminalGuard"),
        .target(name: "SpotterCore"),
        .target(name: "SpotterAssets", path: "Assets", resources: [.copy("exercises.json")]),
        .target(name: "SpotterProtocol", dependencies: ["SpotterCore"]),
        .target(
            name: "SpotterStore",
            dependencies: [
                "SpotterCore",
                "SpotterAssets",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "SpotterSync",
            dependencies: [
                "SpotterCore", "SpotterStore", "SpotterProtocol",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(
            name: "SpotterServer",
            dependencies: [
                "SpotterCore", "SpotterProtocol",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "SpotterTUI",
            dependencies: [
                "SpotterCore", "SpotterStore", "SpotterSync", "CNcursesw", "CTerminalGuard",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "SpotterBench",
            dependencies: [
                "SpotterCore", "SpotterStore", "SpotterProtocol", "SpotterSync", "SpotterServer", "SpotterTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "spotter",
            dependencies: [
                "SpotterCore", "SpotterStore", "SpotterProtocol", "SpotterSync", "SpotterServer", "SpotterTUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The performance suite's command; the UI's frame probe connects the suite to SpotterTUI.
        .executableTarget(
            name: "spotter-bench",
            dependencies: [
                "SpotterBench", "SpotterCore", "SpotterStore", "SpotterTUI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Test support, never linked into `spotter`: the manual clock and sync scheduler, the
        // bench's fixtures, throwaway PostgreSQL clusters for the server and sync tests.
        .target(
            name: "SpotterTestSupport",
            dependencies: [
                "SpotterCore", "SpotterStore", "SpotterSync", "SpotterProtocol", "SpotterServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/SpotterTestSupport"
        ),
        .testTarget(name: "SpotterCoreTests", dependencies: ["SpotterCore"]),
        .testTarget(
            name: "SpotterStoreTests",
            dependencies: [
                "SpotterCore", "SpotterStore", "SpotterTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "SpotterServerTests",
            dependencies: [
                "SpotterCore", "SpotterProtocol", "SpotterServer", "SpotterTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "SpotterSyncTests",
            dependencies: [
                "SpotterCore", "SpotterStore", "SpotterProtocol", "SpotterSync", "SpotterServer", "SpotterTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "SpotterTUITests",
            dependencies: [
                "SpotterCore", "SpotterStore", "SpotterSync", "SpotterTUI", "SpotterTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "SpotterEndToEndTests",
            dependencies: [
                "SpotterCore", "SpotterTestSupport", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ]
)
