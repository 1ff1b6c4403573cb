import Foundation
import Logging
import PostgresNIO
import TenantStore
import TestSupport

/// A throw-away database on the test PostgreSQL (``TestPostgres``) with a pool on it. Each test gets
/// its own database, so tests run in parallel without seeing each other.
struct TestDatabase {
    static let logger: Logger = {
        var logger = Logger(label: "test-db")
        logger.logLevel = .error
        return logger
    }()

    /// Creates a fresh database, runs `body` with a pool on it, then drops the database.
    @discardableResult
    static func withFresh<T: Sendable>(
        maximumConnections: Int = 4, _ body: @Sendable (Database) async throws -> T
    ) async throws -> T {
        let name = try await TestPostgres.createDatabase(prefix: "tstore")
        var configuration = TestPostgres.configuration(database: name)
        configuration.options.maximumConnections = maximumConnections
        let database = Database(client: PostgresClient(configuration: configuration, backgroundLogger: logger), logger: logger)
        let result: Result<T, any Error> = await withTaskGroup(of: Void.self) { group in
            group.addTask { await database.run() }
            defer { group.cancelAll() }
            do { return .success(try await body(database)) } catch { return .failure(error) }
        }
        try await TestPostgres.dropDatabase(name)
        return try result.get()
    }

    /// One text column of a table in `schema`, ordered by its `id`: what a test expects to be left.
    static func column(
        _ column: String, of table: SQLText, in schema: TenantSchema, on client: Database
    ) async throws -> [String] {
        let rows = try await client.query(
            PostgresQuery(unsafeSQL: "SELECT \(column) FROM \(schema.qualified(table).text) ORDER BY id"), logger: logger
        )
        var values: [String] = []
        for try await value in rows.decode(String.self) { values.append(value) }
        return values
    }
}
