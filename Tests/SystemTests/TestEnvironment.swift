import Foundation
import Synchronization

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

    /// Ports handed out by this test process, from 20000-31999: below Linux's ephemeral range
    /// (32768-60999), so no client socket (PostgreSQL connections, HTTP clients) can take one between
    /// the check and the service's bind, and never the same one twice within this process.
    private static let nextPort = Mutex<Int>(20000 + Int(getpid() % 400) * 30)

    /// A loopback TCP port nobody listens on.
    static func freePort() throws -> Int {
        for _ in 0..<2000 {
            let port = nextPort.withLock { port -> Int in
                defer { port = port >= 31999 ? 20000 : port + 1 }
                return port
            }
            if canBind(port) { return port }
        }
        throw POSIXError(.EADDRINUSE)
    }

    private static func canBind(_ port: Int) -> Bool {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { return false }
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// A new empty directory under the system temporary directory.
    static func temporaryDirectory(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return url
    }
}
