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

    /// A TCP port that was free a moment ago (bound on port 0 by the kernel, then released).
    static func freePort() throws -> Int {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, length) }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A new empty directory under the system temporary directory.
    static func temporaryDirectory(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return url
    }
}
