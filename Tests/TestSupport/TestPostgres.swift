import Foundation
import Logging
import PostgresNIO
import TenantStore

/// The test PostgreSQL that `scripts/test.sh` starts (`MFA_TEST_POSTGRES_URL`, else the local stack's
/// cluster): throw-away databases on it, one per test, so tests run side by side without seeing
/// each other's rows.
public enum TestPostgres {
    public static let baseURL = ProcessInfo.processInfo.environment["MFA_TEST_POSTGRES_URL"] ?? "postgres://mfa:mfa@127.0.0.1:54329"

    /// With `MFA_TEST_STATEMENT_LEDGER` set (scripts/test.sh sets it), every test that makes a database
    /// has this process write down the statement types it runs (`StatementLedger`), once.
    private static let keepStatementLedger: Void = {
        guard let path = ProcessInfo.processInfo.environment["MFA_TEST_STATEMENT_LEDGER"], !path.isEmpty else { return }
        try? StatementLedger.keep(appendingTo: path)
    }()

    static let logger: Logger = {
        var logger = Logger(label: "test-postgres")
        logger.logLevel = .error
        return logger
    }()

    /// A pool configuration for `database` on the test server.
    public static func configuration(database: String) -> PostgresClient.Configuration {
        let url = URLComponents(string: baseURL)!
        return PostgresClient.Configuration(
            host: url.host!, port: url.port ?? 5432, username: url.user!, password: url.password, database: database, tls: .disable
        )
    }

    /// The URL of `database` on the test server, as a service's `postgres.url` names it.
    public static func url(of database: String) -> String { "\(baseURL)/\(database)" }

    /// Creates an empty database named `prefix` and a random suffix, and returns its name.
    public static func createDatabase(prefix: String) async throws -> String {
        _ = keepStatementLedger
        let name = prefix + "_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        try await admin { try await $0.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger) }
        return name
    }

    /// Drops `database`, closing whatever connections are still open on it.
    public static func dropDatabase(_ database: String) async throws {
        try await admin {
            try await $0.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(database) WITH (FORCE)"), logger: logger)
        }
    }

    private static func admin(_ body: @Sendable (PostgresClient) async throws -> Void) async throws {
        let client = PostgresClient(configuration: configuration(database: "postgres"), backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await body(client)
        }
    }
}
