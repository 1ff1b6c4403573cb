import Logging
import PostgresNIO
import TenantStore
import Testing

/// A pooled connection must never carry one tenant's schema into another tenant's query.
@Suite("Tenant isolation (PostgreSQL)")
struct TenantIsolationTests {
    static let logger = Logger(label: "test")
    static let migrations = [TenantMigration("CreateItemsTable", ["CREATE TABLE items (id text PRIMARY KEY, owner text NOT NULL)"])]

    @Test("under 400 concurrent queries on a 4-connection pool, no tenant ever reads another's rows")
    func noCrossTenantReads() async throws {
        try await TestDatabase.withFresh(maximumConnections: 4) { client in
            let migrator = try TenantMigrator(client: client, migrations: Self.migrations, logger: Self.logger)
            let tenants = try ["alpha", "beta"].map { try TenantSchema(projectId: "demo-project", tenantId: $0) }
            for schema in tenants {
                try await migrator.migrate(schema)
                for index in 0..<5 {
                    try await client.query(
                        PostgresQuery(
                            tenantSQL: "INSERT INTO \(schema.qualified("items")) (id, owner) VALUES ($1, $2)",
                            binds: Self.binds("\(schema.name)-\(index)", schema.name)
                        ),
                        logger: Self.logger
                    )
                }
            }
            // Half the readers use schema-qualified names; half use the migrator's pattern, a
            // transaction-local search_path with unqualified names. Both must stay in their lane.
            let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
                for round in 0..<400 {
                    let schema = tenants[round % 2]
                    group.addTask {
                        let owners: [String]
                        if round % 4 < 2 {
                            owners = try await Self.owners(
                                client.query(
                                    PostgresQuery(tenantSQL: "SELECT owner FROM \(schema.qualified("items"))"), logger: Self.logger)
                            )
                        } else {
                            owners = try await client.withTransaction(logger: Self.logger) { connection in
                                try await connection.query(
                                    "SELECT set_config('search_path', \(schema.quoted.text), true)", logger: Self.logger)
                                return try await Self.owners(connection.query("SELECT owner FROM items", logger: Self.logger))
                            }
                        }
                        return owners.count == 5 && owners.allSatisfy { $0 == schema.name } ? 0 : 1
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(mismatches == 0)
            // And the transaction-local setting did not leak onto pooled connections.
            for _ in 0..<8 {
                let rows = try await client.query("SELECT current_setting('search_path')", logger: Self.logger)
                for try await path in rows.decode(String.self) { #expect(!path.contains("alpha") && !path.contains("beta")) }
            }
        }
    }

    static func owners(_ rows: PostgresRowSequence) async throws -> [String] {
        var result: [String] = []
        for try await owner in rows.decode(String.self) { result.append(owner) }
        return result
    }

    static func binds(_ values: String...) -> PostgresBindings {
        var bindings = PostgresBindings()
        for value in values { bindings.append(value) }
        return bindings
    }
}
