import Logging
import PostgresNIO
import TenantStore
import Testing

@Suite("Account rows (PostgreSQL)")
struct AccountRowsTests {
    static let logger = Logger(label: "test")
    static let tables = TenantMigration(
        "CreateTables",
        [
            "CREATE TABLE secrets (id text PRIMARY KEY, local_id text NOT NULL)",
            "CREATE TABLE sessions (id text PRIMARY KEY, local_id text NOT NULL)",
        ]
    )

    func owners(_ table: SQLText, in schema: TenantSchema, on client: Database) async throws -> [String] {
        try await TestDatabase.column("local_id", of: table, in: schema, on: client)
    }

    @Test("the named accounts' rows go from every table in one statement, or every account's; a missing schema holds nothing")
    func deletesTheAccountsRows() async throws {
        try await TestDatabase.withFresh { client in
            let schema = try TenantSchema(projectId: "demo-project")
            try await TenantMigrator(client: client, migrations: [Self.tables], logger: Self.logger).migrate(schema)
            try await client.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO \(schema.qualified("secrets")) VALUES ('s1', 'alice'), ('s2', 'bob'), ('s3', 'carol');
                        """
                ),
                logger: Self.logger
            )
            try await client.query(
                PostgresQuery(unsafeSQL: "INSERT INTO \(schema.qualified("sessions")) VALUES ('a', 'alice'), ('b', 'alice'), ('c', 'bob')"),
                logger: Self.logger
            )
            let deleted = try await AccountRows.delete(
                from: ["secrets", "sessions"], in: schema, localIds: ["alice", "nobody"], client: client, logger: Self.logger
            )
            #expect(deleted == 3)
            #expect(try await owners("secrets", in: schema, on: client) == ["bob", "carol"])
            #expect(try await owners("sessions", in: schema, on: client) == ["bob"])
            #expect(
                try await AccountRows.delete(from: ["secrets", "sessions"], in: schema, localIds: nil, client: client, logger: Self.logger)
                    == 3
            )
            #expect(try await owners("secrets", in: schema, on: client) == [])
            let neverProvisioned = try TenantSchema(projectId: "other-project")
            #expect(
                try await AccountRows.delete(
                    from: ["secrets"], in: neverProvisioned, localIds: ["alice"], client: client, logger: Self.logger
                ) == 0
            )
        }
    }
}
