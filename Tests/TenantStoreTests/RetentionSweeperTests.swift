import Logging
import PostgresNIO
import TenantStore
import Testing

@Suite("Retention sweeper (PostgreSQL)")
struct RetentionSweeperTests {
    static let logger = Logger(label: "test")
    static let items = TenantMigration(
        "CreateItemsTable",
        ["CREATE TABLE items (id text PRIMARY KEY, expires_at timestamptz NOT NULL, revoked_at timestamptz)"]
    )
    static let expired = RetentionRule(
        "expired items", table: "items", key: "id", column: "expires_at", retention: .seconds(3600), indexed: true
    )
    static let revoked = RetentionRule(
        "revoked items", table: "items", key: "id", column: "revoked_at", retention: .zero, indexed: false
    )

    /// Rows `id` whose expiry (and revocation) lie the given number of seconds from now.
    func insert(_ rows: [(String, expiresIn: Int, revokedIn: Int?)], in schema: TenantSchema, on client: Database)
        async throws
    {
        for (id, expiresIn, revokedIn) in rows {
            try await client.query(
                """
                INSERT INTO \(sql: schema.qualified("items")) (id, expires_at, revoked_at)
                VALUES (\(id), now() + make_interval(secs => \(Double(expiresIn))),
                        now() + make_interval(secs => \(revokedIn.map(Double.init))))
                """,
                logger: Self.logger
            )
        }
    }

    func ids(in schema: TenantSchema, on client: Database) async throws -> [String] {
        try await TestDatabase.column("id", of: "items", in: schema, on: client)
    }

    @Test("only rows past their column's time by more than the retention go, in every tenant schema; NULL never qualifies")
    func deletesWhatIsPastRetention() async throws {
        try await TestDatabase.withFresh { client in
            let migrator = try TenantMigrator(client: client, migrations: [Self.items], logger: Self.logger)
            let schemas = [try TenantSchema(projectId: "demo-project"), try TenantSchema(projectId: "demo-project", tenantId: "t1")]
            for schema in schemas {
                try await migrator.migrate(schema)
                try await insert(
                    [
                        ("expired-2h", expiresIn: -7200, revokedIn: nil), ("expired-10m", expiresIn: -600, revokedIn: nil),
                        ("live", expiresIn: 600, revokedIn: nil), ("revoked", expiresIn: 600, revokedIn: -1),
                        ("revoked-later", expiresIn: 600, revokedIn: 60),
                    ],
                    in: schema, on: client
                )
            }
            let sweeper = RetentionSweeper(client: client, tenants: migrator, rules: [Self.expired, Self.revoked], logger: Self.logger)
            #expect(try await sweeper.sweep() == ["expired items": 2, "revoked items": 2])
            for schema in schemas {
                #expect(try await ids(in: schema, on: client) == ["expired-10m", "live", "revoked-later"])
            }
            #expect(try await sweeper.sweep() == ["expired items": 0, "revoked items": 0])
        }
    }

    @Test("an indexed rule deletes more than one batch in one pass")
    func deletesEveryBatch() async throws {
        try await TestDatabase.withFresh { client in
            let migrator = try TenantMigrator(client: client, migrations: [Self.items], logger: Self.logger)
            let schema = try TenantSchema(projectId: "demo-project")
            try await migrator.migrate(schema)
            try await client.query(
                """
                INSERT INTO \(sql: schema.qualified("items")) (id, expires_at)
                SELECT 'i' || n, now() - interval '2 hours' FROM generate_series(1, 2500) AS n
                """,
                logger: Self.logger
            )
            try await insert([("live", expiresIn: 60, revokedIn: nil)], in: schema, on: client)
            let sweeper = RetentionSweeper(client: client, tenants: migrator, rules: [Self.expired], logger: Self.logger)
            #expect(try await sweeper.sweep() == ["expired items": 2500])
            #expect(try await ids(in: schema, on: client) == ["live"])
        }
    }

    @Test("a control-schema rule sweeps schema control only")
    func sweepsTheControlSchema() async throws {
        try await TestDatabase.withFresh { client in
            let migrator = try TenantMigrator(client: client, migrations: [Self.items], logger: Self.logger)
            let tenant = try TenantSchema(projectId: "demo-project")
            try await migrator.migrate(.control)
            try await migrator.migrate(tenant)
            for schema in [TenantSchema.control, tenant] {
                try await insert([("old", expiresIn: -7200, revokedIn: nil)], in: schema, on: client)
            }
            let rule = RetentionRule(
                "expired control items", scope: .control, table: "items", key: "id", column: "expires_at",
                retention: .seconds(60), indexed: false
            )
            let sweeper = RetentionSweeper(client: client, tenants: migrator, rules: [rule], logger: Self.logger)
            #expect(try await sweeper.sweep() == ["expired control items": 1])
            #expect(try await ids(in: .control, on: client) == [])
            #expect(try await ids(in: tenant, on: client) == ["old"])
        }
    }

    @Test("a tenant schema without the table (not migrated yet) is skipped, the others are swept")
    func skipsSchemasWithoutTheTable() async throws {
        try await TestDatabase.withFresh { client in
            let migrator = try TenantMigrator(client: client, migrations: [Self.items], logger: Self.logger)
            let other = TenantMigration("CreateOthersTable", ["CREATE TABLE others (id text PRIMARY KEY)"])
            // Sorts before the migrated schema, so the pass meets it first.
            try await TenantMigrator(client: client, migrations: [other], logger: Self.logger)
                .migrate(try TenantSchema(projectId: "aaa-project"))
            let schema = try TenantSchema(projectId: "demo-project")
            try await migrator.migrate(schema)
            try await insert([("old", expiresIn: -7200, revokedIn: nil)], in: schema, on: client)
            let sweeper = RetentionSweeper(client: client, tenants: migrator, rules: [Self.expired], logger: Self.logger)
            #expect(try await sweeper.sweep() == ["expired items": 1])
            #expect(try await ids(in: schema, on: client) == [])
        }
    }
}
