import Foundation

/// Where the system tests find their parts: binaries built by `swift build`, the test PostgreSQL,
/// the `proto-json/` directory and `scripts/pg.sh`.
enum TestEnvironment {
    static let environment = ProcessInfo.processInfo.environment
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `MFA_TEST_BIN_DIR`, else the directory of the running test bundle (SwiftPM puts the
    /// service executables beside it).
    static var binaryDirectory: URL {
        if let directory = environment["MFA_TEST_BIN_DIR"] { return URL(fileURLWithPath: directory) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    static var postgresBaseURL: String {
        environment["MFA_TEST_POSTGRES_URL"] ?? "postgres://mfa:mfa@127.0.0.1:54329"
    }

    static var contractsDirectory: String { packageRoot.appendingPathComponent("proto-json").path }

    static var pgScript: String {
        environment["MFA_TEST_PG_SCRIPT"] ?? packageRoot.appendingPathComponent("scripts/pg.sh").path
    }

    /// A new empty directory under the system temporary directory.
    static func temporaryDirectory(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return url
    }
}
