import Logging
import PostgresNIO
import TenantStore
import Testing

/// A statement as a type (``Statement``): its text runs in the schema it is given, prepared or
/// not, on the pool or inside a transaction, and its rows are what its `Row` reads.
@Suite("Statements as types (PostgreSQL)")
struct StatementTests {
    static let logger = TestDatabase.logger
    static let migrations = [
        TenantMigration("CreateItemsTable", ["CREATE TABLE items (id text PRIMARY KEY, owner text NOT NULL, weight bigint)"])
    ]

    struct InsertItem: Statement {
        let id: String
        let owner: String
        let weight: Int64?

        func query(in schema: TenantSchema) throws -> CachedQuery {
            try "INSERT INTO \(sql: schema.qualified("items")) (id, owner, weight) VALUES (\(id), \(owner), \(weight))"
        }
    }

    struct Item: StatementRow {
        let id: String
        let weight: Int64?

        init(_ columns: RowColumns) throws {
            id = try columns("id")
            weight = try columns("weight")
        }
    }

    /// Unprepared, as bulk and rare statements run.
    struct ItemsOf: Statement {
        typealias Row = Item
        static var isCached: Bool { false }
        let owner: String

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT id, weight FROM \(sql: schema.qualified("items")) WHERE owner = \(owner) ORDER BY id"
        }
    }

    struct CountItems: Statement {
        typealias Row = SingleValue<Int64>

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT count(*) FROM \(sql: schema.qualified("items"))"
        }
    }

    /// Two columns where its row expects one.
    struct CountAndOwner: Statement {
        typealias Row = SingleValue<Int64>

        func query(in schema: TenantSchema) -> CachedQuery {
            "SELECT count(*), min(owner) FROM \(sql: schema.qualified("items"))"
        }
    }

    @Test("a statement runs in the schema it is given: rows written in one are read there only, prepared or not")
    func runsInItsSchema() async throws {
        try await TestDatabase.withFresh(maximumConnections: 1) { client in
            let (alpha, beta) = (
                try TenantSchema(projectId: "demo-project", tenantId: "alpha"),
                try TenantSchema(projectId: "demo-project", tenantId: "beta")
            )
            let migrator = try TenantMigrator(client: client, migrations: Self.migrations, logger: Self.logger)
            for schema in [alpha, beta] { try await migrator.migrate(schema) }
            try await client.run(InsertItem(id: "b", owner: "ann", weight: 2), in: alpha, logger: Self.logger)
            try await client.run(InsertItem(id: "a", owner: "ann", weight: nil), in: alpha, logger: Self.logger)
            try await client.withTransaction(logger: Self.logger) { connection in
                try await connection.run(InsertItem(id: "c", owner: "ann", weight: 7), in: beta, logger: Self.logger)
            }
            let inAlpha = try await client.run(ItemsOf(owner: "ann"), in: alpha, logger: Self.logger)
            #expect(inAlpha.map(\.id) == ["a", "b"] && inAlpha.map(\.weight) == [nil, 2])
            #expect(try await client.run(ItemsOf(owner: "ann"), in: beta, logger: Self.logger).map(\.id) == ["c"])
            #expect(try await client.first(CountItems(), in: alpha, logger: Self.logger)?.value == 2)
            #expect(try await client.first(ItemsOf(owner: "nobody"), in: alpha, logger: Self.logger) == nil)
        }
    }

    @Test("a row of more columns than its statement's row reads is an error, not a value from the wrong column")
    func singleValueRefusesMoreColumns() async throws {
        try await TestDatabase.withFresh(maximumConnections: 1) { client in
            let schema = try TenantSchema(projectId: "demo-project", tenantId: "alpha")
            let migrator = try TenantMigrator(client: client, migrations: Self.migrations, logger: Self.logger)
            try await migrator.migrate(schema)
            await #expect(throws: MissingColumn.self) {
                try await client.run(CountAndOwner(), in: schema, logger: Self.logger)
            }
        }
    }
}
