// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for what reads bytes from the network first: the public API's body parser, the
// JSON-RPC envelope, and what authenticators send (WebAuthn's CBOR, authenticator data, attestation). Built apart from the product (the whole build is instrumented), by
// scripts/fuzz.sh:
//   swift build --package-path Fuzz -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library \
//     -Xswiftc -use-ld=lld
let package = Package(
    name: "mfa-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "mfa-backend", path: ".."), .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
    ],
    targets: [
        // libFuzzer's driver entry, declared for Swift (see its header for why).
        .target(name: "FuzzerDriver"),
        .executableTarget(
            name: "FuzzPublicBody", dependencies: ["FuzzerDriver", .product(name: "JSONRPC", package: "mfa-backend")]
        ),
        .executableTarget(
            name: "FuzzWebAuthn", dependencies: ["FuzzerDriver", .product(name: "WebAuthn", package: "mfa-backend")]
        ),
        .executableTarget(
            name: "FuzzRPCEnvelope",
            dependencies: [
                "FuzzerDriver", .product(name: "JSONRPC", package: "mfa-backend"), .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
