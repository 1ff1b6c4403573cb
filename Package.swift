// swift-tools-version:6.1
import PackageDescription

// Strictness shared by every target (Hummingbird's habit): existential `any` spelled out.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "mfa-backend",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "factor-registry", targets: ["factor-registry"]),
        .executable(name: "challenge-issuer", targets: ["challenge-issuer"]),
        .executable(name: "session-token", targets: ["session-token"]),
        .executable(name: "gateway", targets: ["gateway"]),
        .executable(name: "mfa-dev-pki", targets: ["mfa-dev-pki"]),
        .executable(name: "mfa-bench", targets: ["mfa-bench"]),
        .executable(name: "mfa-all-in-one", targets: ["mfa-all-in-one"]),
        .executable(name: "mfa-admin", targets: ["mfa-admin"]),
        // For the fuzz targets (Fuzz/Package.swift), which build it with libFuzzer's instrumentation.
        .library(name: "JSONRPC", targets: ["JSONRPC"]),
        .library(name: "WebAuthn", targets: ["WebAuthn"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        // bcrypt, for imported BCRYPT password hashes (HummingbirdBcrypt: OpenBSD's bcrypt in C).
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Our peer connections (ServiceKit's PeerChannel): HTTP/2 streams without AsyncHTTPClient's per-call machinery.
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        // CSV, for `mfa-admin users import` of a `firebase auth:export` CSV file.
        .package(url: "https://github.com/yaslab/CSV.swift.git", from: "2.5.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64.git", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: ["JSON"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.0"),
        // Traces over OTLP/HTTP only (no gRPC stack), off unless tracing.otlpEndpoint is set.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.3.0"),
    ],
    targets: [
        // MARK: shared kits
        // The version of this build (VERSION and the git commit), written by the BuildVersion plugin.
        .plugin(name: "BuildVersion", capability: .buildTool()),
        .target(name: "BuildInfo", swiftSettings: swiftSettings, plugins: ["BuildVersion"]),
        .target(
            name: "JSONRPC",
            dependencies: [
                .product(name: "Logging", package: "swift-log"), .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: swiftSettings
        ),
        // The system's OpenSSL 3 libcrypto (Debian: libssl-dev), for RS256 signatures only: see
        // RS256Signer for why not swift-crypto there.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "RS256Signing", dependencies: ["COpenSSL"], swiftSettings: swiftSettings),
        // libqrencode (Debian: libqrencode-dev) draws the QR codes of TOTP enrollments: the demo
        // page's and mfa-admin's.
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .target(name: "QRCode", dependencies: ["CQRencode"], swiftSettings: swiftSettings),
        // What plugins (factor providers, message senders, app verifiers) implement; no frameworks.
        // The domain's closed sets of words (factor kinds, out-of-band request types), which the
        // contracts between services and the plugins both speak.
        .target(name: "AuthVocabulary", swiftSettings: swiftSettings),
        .target(name: "PluginKit", dependencies: ["AuthVocabulary"], swiftSettings: swiftSettings),
        // What the plugins that call an outside service over HTTP share: one POST under a time limit.
        .target(
            name: "PluginHTTP",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Factor providers: one module per kind, depending on the plugin kit (and crypto) only.
        .target(
            name: "FactorTOTP", dependencies: ["PluginKit", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "FactorSMS", dependencies: ["PluginKit", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // WebAuthn's parsing and checks (passkeys, issue 59): CBOR, COSE keys, authenticator and client
        // data, the two ceremonies. A kit with no service knowledge.
        .target(
            name: "WebAuthn",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "VerifierCaptcha",
            dependencies: ["PluginKit", "PluginHTTP", .product(name: "AsyncHTTPClient", package: "async-http-client")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "VerifierPlayIntegrity",
            dependencies: [
                "PluginKit", "PluginHTTP", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "APNsPush",
            dependencies: [
                "PluginKit", "PluginHTTP", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SMSHTTP",
            dependencies: ["PluginKit", "PluginHTTP", .product(name: "AsyncHTTPClient", package: "async-http-client")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Contracts",
            dependencies: ["AuthVocabulary", "JSONRPC", .product(name: "ExtrasBase64", package: "swift-extras-base64")],
            swiftSettings: swiftSettings
        ),
        // The texts of SMS and emails: languages, built-in translations, operators' Mustache templates.
        .target(
            name: "LocalizedMessages",
            dependencies: ["AuthVocabulary", "Contracts", .product(name: "Mustache", package: "swift-mustache")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "IdentityToolkit",
            dependencies: ["JSONRPC"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TenantStore",
            dependencies: [
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "DevelopmentPKI",
            dependencies: [
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // glibc's mallopt for ServiceKit's MemoryReturn (a header only; nothing is compiled).
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        // The transport beneath ServiceKit, knowing nothing of the contract's methods (Hummingbird's core
        // and library split): the public and RPC listeners with their connection limits, peer channels
        // over HTTP/2 with mutual TLS, in-process calls, and the clients of outside services.
        .target(
            name: "ServiceTransport",
            dependencies: [
                "JSONRPC",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP2", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ServiceKit",
            dependencies: [
                "AuthVocabulary", "ServiceTransport",
                "JSONRPC", "Contracts", "IdentityToolkit", "TenantStore", "CMalloc", "BuildInfo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // MARK: plugins (each depends on PluginKit and its own transport, never on a service)
        .target(
            name: "EmailSMTP",
            dependencies: [
                "PluginKit",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        // MARK: service libraries
        .target(
            name: "FactorRegistryApp",
            dependencies: [
                "ServiceTransport",
                "AuthVocabulary", "ServiceKit", "JSONRPC", "Contracts", "IdentityToolkit", "TenantStore", "LocalizedMessages",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ChallengeIssuerApp",
            dependencies: [
                "ServiceTransport",
                "AuthVocabulary", "ServiceKit", "JSONRPC", "Contracts", "IdentityToolkit", "TenantStore", "PluginKit", "EmailSMTP",
                "FactorTOTP",
                "FactorSMS",
                "SMSHTTP", "LocalizedMessages", "PluginHTTP",
                "VerifierCaptcha", "VerifierPlayIntegrity", "APNsPush",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SessionTokenApp",
            dependencies: [
                "ServiceTransport",
                "AuthVocabulary", "ServiceKit", "JSONRPC", "Contracts", "IdentityToolkit", "TenantStore", "RS256Signing",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "GatewayApp",
            dependencies: [
                "ServiceTransport",
                "AuthVocabulary", "ServiceKit", "JSONRPC", "Contracts", "IdentityToolkit", "QRCode", "PluginHTTP", "WebAuthn",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The development demo page, compiled into the binary: nothing to locate or install.
            resources: [
                .embedInCode("Development/Demo/demo.html"), .embedInCode("Development/Demo/demo.js"),
                .embedInCode("Development/Demo/demo.css"),
            ],
            swiftSettings: swiftSettings
        ),
        // MARK: executables (an entry point each, nothing else)
        .executableTarget(name: "factor-registry", dependencies: ["FactorRegistryApp", "ServiceKit"], swiftSettings: swiftSettings),
        .executableTarget(name: "challenge-issuer", dependencies: ["ChallengeIssuerApp", "ServiceKit"], swiftSettings: swiftSettings),
        .executableTarget(name: "session-token", dependencies: ["SessionTokenApp", "ServiceKit"], swiftSettings: swiftSettings),
        .executableTarget(name: "gateway", dependencies: ["GatewayApp", "ServiceKit"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "mfa-dev-pki",
            dependencies: ["DevelopmentPKI", "BuildInfo", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "mfa-all-in-one",
            dependencies: ["FactorRegistryApp", "ChallengeIssuerApp", "SessionTokenApp", "GatewayApp", "ServiceKit"],
            swiftSettings: swiftSettings
        ),
        // The operator's command line: the admin REST API and a TOTP enrollment in a terminal.
        .executableTarget(
            name: "mfa-admin",
            dependencies: [
                "QRCode", "JSONRPC", "BuildInfo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "CSV", package: "CSV.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "mfa-bench",
            dependencies: [
                "ServiceTransport",
                "ServiceKit", "BuildInfo", "Contracts", "JSONRPC", "FactorTOTP", "RS256Signing",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // MARK: tests
        // What several test targets share (loopback ports for the servers they start).
        .target(
            name: "TestSupport",
            dependencies: [
                "TenantStore", .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        // A data service built as its executable builds it, on a throw-away database, called through
        // its method table: the in-process tests of each service's statements.
        .target(
            name: "ServiceTesting",
            dependencies: [
                "ServiceTransport",
                "ServiceKit", "JSONRPC", "DevelopmentPKI", "TestSupport",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/ServiceTesting",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "JSONRPCTests", dependencies: ["JSONRPC", .product(name: "Logging", package: "swift-log")], swiftSettings: swiftSettings),
        .testTarget(name: "IdentityToolkitTests", dependencies: ["IdentityToolkit", "JSONRPC"], swiftSettings: swiftSettings),
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode"], swiftSettings: swiftSettings),
        .testTarget(name: "WebAuthnTests", dependencies: ["WebAuthn"], swiftSettings: swiftSettings),
        .testTarget(
            name: "LocalizedMessagesTests", dependencies: ["AuthVocabulary", "LocalizedMessages", "Contracts"], swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ServiceTransportTests",
            dependencies: [
                "ServiceTransport", "JSONRPC", "DevelopmentPKI",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ServiceKitTests",
            dependencies: [
                "ServiceTransport",
                "ServiceKit",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The real-server tests start aiosmtpd from smtp_test_server.py (read from the source tree).
        .testTarget(
            name: "EmailSMTPTests",
            dependencies: ["EmailSMTP", "PluginKit", "TestSupport"],
            exclude: ["smtp_test_server.py"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayAppTests",
            dependencies: [
                "ServiceTransport",
                "AuthVocabulary", "GatewayApp", "ServiceKit", "Contracts", "IdentityToolkit", "JSONRPC", "PluginHTTP",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SessionTokenAppTests",
            dependencies: ["AuthVocabulary", "SessionTokenApp", "Contracts", "IdentityToolkit", "JSONRPC", "ServiceTesting", "ServiceKit"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ChallengeIssuerAppTests",
            dependencies: [
                "ChallengeIssuerApp", "Contracts", "JSONRPC", "PluginKit", "ServiceKit", "ServiceTesting", "FactorTOTP", "VerifierCaptcha",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FactorRegistryTests",
            dependencies: [
                "FactorRegistryApp", "AuthVocabulary", "Contracts", "DataServiceTesting",
                "IdentityToolkit", "JSONRPC", "ServiceKit", "ServiceTesting",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The three data services in process with a project and one tenant: the two scopes every
        // statement suite runs in.
        .target(
            name: "DataServiceTesting",
            dependencies: ["FactorRegistryApp", "ChallengeIssuerApp", "SessionTokenApp", "Contracts", "ServiceKit", "ServiceTesting"],
            path: "Tests/DataServiceTesting",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DataServiceTests",
            dependencies: [
                "ServiceTransport",
                "AuthVocabulary", "Contracts", "DataServiceTesting", "FactorTOTP", "JSONRPC", "ServiceKit", "ServiceTesting", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FactorProviderTests",
            dependencies: ["PluginKit", "FactorTOTP", "FactorSMS", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RS256SigningTests",
            dependencies: [
                "RS256Signing", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "ContractsTests", dependencies: ["AuthVocabulary", "Contracts", "JSONRPC"], swiftSettings: swiftSettings),
        .testTarget(
            name: "TenantStoreTests",
            dependencies: [
                "TenantStore", "TestSupport", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SystemTests",
            dependencies: [
                "ServiceTransport",
                "JSONRPC", "Contracts", "ServiceKit", "DevelopmentPKI", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
