import Logging
import PostgresNIO
import TenantStore
import Testing

@Suite("Tenant migrator (PostgreSQL)")
struct TenantMigratorTests {
    static let logger = Logger(label: "test")
    static let first = TenantMigration("CreateItemsTable", ["CREATE TABLE items (id text PRIMARY KEY, owner text NOT NULL)"])
    static let second = TenantMigration("AddNoteToItems", ["ALTER TABLE items ADD COLUMN note text"])

    func applied(_ schema: TenantSchema, on client: Database) async throws -> [String] {
        var names: [String] = []
        let rows = try await client.query(
            PostgresQuery(unsafeSQL: "SELECT name FROM \(schema.qualified("schema_migrations")) ORDER BY position"),
            logger: Self.logger
        )
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }

    @Test("migrating applies every migration once; running again is a no-op")
    func migrateIsIdempotent() async throws {
        try await TestDatabase.withFresh { client in
            let migrator = try TenantMigrator(client: client, migrations: [Self.first, Self.second], logger: Self.logger)
            let schema = try TenantSchema(projectId: "demo-project", tenantId: "tenantA")
            #expect(try await migrator.migrate(schema) == 2)
            #expect(try await migrator.migrate(schema) == 0)
            #expect(try await applied(schema, on: client) == ["CreateItemsTable", "AddNoteToItems"])
            #expect(try await migrator.isCurrent(schema))
        }
    }

    @Test("a longer list applies only the new migrations")
    func appendsNewMigrations() async throws {
        try await TestDatabase.withFresh { client in
            let schema = try TenantSchema(projectId: "demo-project")
            #expect(try await TenantMigrator(client: client, migrations: [Self.first], logger: Self.logger).migrate(schema) == 1)
            let both = try TenantMigrator(client: client, migrations: [Self.first, Self.second], logger: Self.logger)
            #expect(try await !both.isCurrent(schema))
            #expect(try await both.migrate(schema) == 1)
            #expect(try await both.isCurrent(schema))
        }
    }

    @Test("a schema whose history is not a prefix of ours is refused and left untouched")
    func refusesUnknownHistory() async throws {
        try await TestDatabase.withFresh { client in
            let schema = try TenantSchema(projectId: "demo-project", tenantId: "tenantB")
            try await TenantMigrator(client: client, migrations: [Self.first, Self.second], logger: Self.logger).migrate(schema)
            let other = TenantMigration("SomethingElse", ["CREATE TABLE other (id int)"])
            await #expect(throws: TenantStoreError.unknownHistory("")) {
                try await TenantMigrator(client: client, migrations: [Self.first, other], logger: Self.logger).migrate(schema)
            }
            await #expect(throws: TenantStoreError.unknownHistory("")) {
                try await TenantMigrator(client: client, migrations: [Self.first], logger: Self.logger).migrate(schema)
            }
            #expect(try await applied(schema, on: client) == ["CreateItemsTable", "AddNoteToItems"])
        }
    }

    @Test("a failing migration rolls back entirely, recording nothing")
    func failedMigrationRollsBack() async throws {
        try await TestDatabase.withFresh { client in
            let schema = try TenantSchema(projectId: "demo-project", tenantId: "tenantC")
            let broken = TenantMigration("Broken", ["CREATE TABLE half (id int)", "THIS IS NOT SQL"])
            await #expect(throws: (any Error).self) {
                try await TenantMigrator(client: client, migrations: [Self.first, broken], logger: Self.logger).migrate(schema)
            }
            // Not even the first migration or the schema survives: one transaction.
            let rows = try await client.query(
                "SELECT count(*)::int FROM pg_namespace WHERE nspname = \(schema.name)", logger: Self.logger
            )
            for try await count in rows.decode(Int.self) { #expect(count == 0) }
        }
    }

    @Test("concurrent migrations of one schema serialise: each migration is applied exactly once")
    func concurrentMigrations() async throws {
        try await TestDatabase.withFresh(maximumConnections: 8) { client in
            let migrator = try TenantMigrator(client: client, migrations: [Self.first, Self.second], logger: Self.logger)
            let schema = try TenantSchema(projectId: "demo-project", tenantId: "racy")
            let total = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await migrator.migrate(schema) } }
                return try await group.reduce(0, +)
            }
            #expect(total == 2)
            #expect(try await applied(schema, on: client) == ["CreateItemsTable", "AddNoteToItems"])
        }
    }

    @Test("dropping removes the schema and its data; dropping again reports it was gone")
    func dropRemovesSchema() async throws {
        try await TestDatabase.withFresh { client in
            let migrator = try TenantMigrator(client: client, migrations: [Self.first], logger: Self.logger)
            let schema = try TenantSchema(projectId: "demo-project", tenantId: "doomed")
            try await migrator.migrate(schema)
            #expect(try await migrator.existingSchemas().map(\.name) == ["t_doomed"])
            #expect(try await migrator.drop(schema))
            #expect(try await !migrator.drop(schema))
            #expect(try await migrator.existingSchemas().isEmpty)
        }
    }

    @Test("duplicate migration names are refused at construction")
    func duplicateNames() async throws {
        try await TestDatabase.withFresh { client in
            #expect(throws: TenantStoreError.duplicateMigration) {
                try TenantMigrator(client: client, migrations: [Self.first, Self.first], logger: Self.logger)
            }
        }
    }
}
