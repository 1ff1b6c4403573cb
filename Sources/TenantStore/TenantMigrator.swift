import Logging
import PostgresNIO

/// Creates, migrates and drops schemas. Every operation on one schema runs in one transaction
/// holding an advisory lock on the schema's name, so concurrent instances of a service (or
/// a retry racing the first attempt) serialise instead of colliding.
public struct TenantMigrator: Sendable {
    public let client: Database
    /// The ordered migrations of one service; the applied list must always be a prefix of it.
    public let migrations: [TenantMigration]
    public let logger: Logger

    public init(client: Database, migrations: [TenantMigration], logger: Logger) throws {
        guard Set(migrations.map(\.name)).count == migrations.count else { throw TenantStoreError.duplicateMigration }
        self.client = client
        self.migrations = migrations
        self.logger = logger
    }

    /// Creates the schema if needed and applies the pending migrations.
    /// - Returns: how many migrations were applied (0 when already current).
    /// - Throws: ``TenantStoreError/unknownHistory(_:)`` when the recorded history is not a prefix of ours.
    @discardableResult
    public func migrate(_ schema: TenantSchema) async throws -> Int {
        let migrations = self.migrations
        let logger = self.logger
        return try await transaction { connection in
            try await Self.lock(schema, on: connection, logger: logger)
            try await connection.query(PostgresQuery(tenantSQL: "CREATE SCHEMA IF NOT EXISTS \(schema.quoted)"), logger: logger)
            // Transaction-local: ends with this transaction, so it cannot leak to the next borrower.
            try await connection.query("SELECT set_config('search_path', \(schema.quoted.text), true)", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    position integer PRIMARY KEY,
                    name text NOT NULL UNIQUE,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                logger: logger
            )
            var applied: [String] = []
            for try await name in try await connection.query(
                "SELECT name FROM schema_migrations ORDER BY position", logger: logger
            ).decode(String.self) {
                applied.append(name)
            }
            let known = migrations.map(\.name)
            guard applied.count <= known.count, Array(known.prefix(applied.count)) == applied else {
                throw TenantStoreError.unknownHistory("\(schema.name): \(applied.joined(separator: ","))")
            }
            for (position, migration) in migrations.enumerated().dropFirst(applied.count) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO schema_migrations (position, name) VALUES (\(position), \(migration.name))",
                    logger: logger
                )
                logger.info("migration applied", metadata: ["tenant.schema": "\(schema.name)", "migration": "\(migration.name)"])
            }
            return known.count - applied.count
        }
    }

    /// Drops the schema and everything in it.
    /// - Returns: whether the schema existed.
    @discardableResult
    public func drop(_ schema: TenantSchema) async throws -> Bool {
        let logger = self.logger
        return try await transaction { connection in
            try await Self.lock(schema, on: connection, logger: logger)
            let existed = try await Self.exists(schema, on: connection, logger: logger)
            try await connection.query(PostgresQuery(tenantSQL: "DROP SCHEMA IF EXISTS \(schema.quoted) CASCADE"), logger: logger)
            return existed
        }
    }

    /// Whether the schema exists and records every known migration.
    public func isCurrent(_ schema: TenantSchema) async throws -> Bool {
        let rows = try await client.query(
            """
            SELECT count(*)::int FROM information_schema.tables
            WHERE table_schema = \(schema.name) AND table_name = 'schema_migrations'
            """,
            logger: logger
        )
        var hasTable = false
        for try await count in rows.decode(Int.self) { hasTable = count > 0 }
        guard hasTable else { return false }
        let applied = try await client.query(
            PostgresQuery(tenantSQL: "SELECT name FROM \(schema.qualified("schema_migrations")) ORDER BY position"),
            logger: logger
        )
        var names: [String] = []
        for try await name in applied.decode(String.self) { names.append(name) }
        return names == migrations.map(\.name)
    }

    /// The tenant schemas (`p_…`, `t_…`) that exist in this database.
    public func existingSchemas() async throws -> [TenantSchema] {
        let rows = try await client.query(
            "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'p\\_%' OR nspname LIKE 't\\_%' ORDER BY nspname",
            logger: logger
        )
        var schemas: [TenantSchema] = []
        for try await name in rows.decode(String.self) {
            if let schema = TenantSchema(schemaName: name) { schemas.append(schema) }
        }
        return schemas
    }

    /// Runs `body` in a transaction and reports the body's own error (the transaction wraps it, with
    /// rollback details, in a `TransactionError`; a failed rollback is still reported as such).
    private func transaction<T: Sendable>(
        _ body: (PostgresConnection) async throws -> sending T
    ) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger) { try await body($0) }
        } catch let error as TransactionError {
            if error.rollbackError == nil, let cause = error.closureError { throw cause }
            throw error
        }
    }

    private static func lock(_ schema: TenantSchema, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(schema.name)))", logger: logger)
    }

    private static func exists(_ schema: TenantSchema, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query(
            "SELECT count(*)::int FROM pg_namespace WHERE nspname = \(schema.name)", logger: logger
        )
        var found = false
        for try await count in rows.decode(Int.self) { found = count > 0 }
        return found
    }
}
