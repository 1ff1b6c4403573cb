import Foundation
import Logging
import PostgresNIO
import TenantStore

/// A throw-away database on the test PostgreSQL (started by `scripts/test.sh`; the URL comes from
/// `MFA_TEST_POSTGRES_URL`, defaulting to the local stack's cluster). Each test gets its own
/// database, so tests run in parallel without seeing each other.
struct TestDatabase {
    static let baseURL = ProcessInfo.processInfo.environment["MFA_TEST_POSTGRES_URL"] ?? "postgres://mfa:mfa@127.0.0.1:54329"
    static let logger: Logger = {
        var logger = Logger(label: "test-db")
        logger.logLevel = .error
        return logger
    }()

    static func configuration(database: String) -> PostgresClient.Configuration {
        let url = URLComponents(string: baseURL)!
        return PostgresClient.Configuration(
            host: url.host!, port: url.port ?? 5432, username: url.user!, password: url.password, database: database,
            tls: .disable
        )
    }

    /// Creates a fresh database, runs `body` with a pool on it, then drops the database.
    @discardableResult
    static func withFresh<T: Sendable>(
        maximumConnections: Int = 4, _ body: @Sendable (Database) async throws -> T
    ) async throws -> T {
        let name = "tstore_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        try await admin { try await $0.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger) }
        var configuration = configuration(database: String(name))
        configuration.options.maximumConnections = maximumConnections
        let database = Database(client: PostgresClient(configuration: configuration, backgroundLogger: logger), logger: logger)
        let result: Result<T, any Error> = await withTaskGroup(of: Void.self) { group in
            group.addTask { await database.run() }
            defer { group.cancelAll() }
            do { return .success(try await body(database)) } catch { return .failure(error) }
        }
        try await admin {
            try await $0.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
        }
        return try result.get()
    }

    private static func admin(_ body: @Sendable (PostgresClient) async throws -> Void) async throws {
        let client = PostgresClient(configuration: configuration(database: "postgres"), backgroundLogger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            try await body(client)
            group.cancelAll()
        }
    }

    /// One text column of a table in `schema`, ordered by its `id`: what a test expects to be left.
    static func column(
        _ column: String, of table: StaticString, in schema: TenantSchema, on client: Database
    ) async throws -> [String] {
        let rows = try await client.query(
            PostgresQuery(unsafeSQL: "SELECT \(column) FROM \(schema.qualified(table)) ORDER BY id"), logger: logger
        )
        var values: [String] = []
        for try await value in rows.decode(String.self) { values.append(value) }
        return values
    }
}
