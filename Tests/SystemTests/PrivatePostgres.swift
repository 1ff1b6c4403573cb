import Foundation
import TestSupport

/// A PostgreSQL cluster of a test's own (`scripts/pg.sh`, as in the test command), for tests that
/// stop and restart the database under running services. It is stopped and removed afterwards,
/// whether the test passes or not.
struct PrivatePostgres {
    let dataDirectory: String
    let port: Int

    var baseURL: String { "postgres://mfa:mfa@127.0.0.1:\(port)" }
    /// The same server through its Unix socket (`scripts/pg.sh` puts it in the data directory), the
    /// host written as libpq does: the directory, percent-encoded.
    var socketBaseURL: String {
        "postgres://mfa:mfa@\(dataDirectory.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!):\(port)"
    }

    func start() async throws { try await Self.pg("start", dataDirectory, String(port)) }
    func stop() async throws { try await Self.pg("stop", dataDirectory) }

    static func with(_ name: String, _ body: (PrivatePostgres) async throws -> Void) async throws {
        let directory = try TestEnvironment.temporaryDirectory(name)
        let cluster = PrivatePostgres(
            dataDirectory: directory.appendingPathComponent("pgdata").path, port: try LoopbackPort.free()
        )
        try await cluster.start()
        do {
            try await body(cluster)
        } catch {
            try? await cluster.stop()
            throw error
        }
        try await cluster.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func pg(_ arguments: String...) async throws {
        let status = try await ServiceProcess.run("/bin/bash", [TestEnvironment.pgScript] + arguments)
        guard status == 0 else {
            throw ProcessFailure(message: "pg.sh \(arguments.joined(separator: " ")) exited \(status)")
        }
    }
}
