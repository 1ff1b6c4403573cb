import Logging
import PostgresNIO
import TenantStore
import Testing

/// Cached queries run as named prepared statements: the same answers as unprepared ones, one
/// statement per schema, a bounded number of names, and no failure that outlives its cause.
@Suite("Cached queries (PostgreSQL)")
struct StatementCacheTests {
    static let logger = TestDatabase.logger
    static let migrations = [TenantMigration("CreateItemsTable", ["CREATE TABLE items (id text PRIMARY KEY, owner text NOT NULL)"])]

    @Test("a cached query is prepared once per connection and each schema's text reads only that schema")
    func preparedPerSchema() async throws {
        try await TestDatabase.withFresh(maximumConnections: 1) { client in
            let cache = StatementCache(capacity: 10)
            let tenants = try ["alpha", "beta"].map { try TenantSchema(projectId: "demo-project", tenantId: $0) }
            let migrator = try TenantMigrator(client: client, migrations: Self.migrations, logger: Self.logger)
            for schema in tenants {
                try await migrator.migrate(schema)
                try await client.query(
                    cached: "INSERT INTO \(sql: schema.qualified("items")) (id, owner) VALUES (\("one"), \(schema.name))",
                    logger: Self.logger, cache: cache
                )
            }
            for round in 0..<6 {
                let schema = tenants[round % 2]
                let rows = try await client.query(
                    cached: "SELECT owner FROM \(sql: schema.qualified("items")) WHERE id = \("one")",
                    logger: Self.logger, cache: cache
                )
                var owners: [String] = []
                for try await owner in rows.decode(String.self) { owners.append(owner) }
                #expect(owners == [schema.name])
            }
            // Four texts ran and earned names; only the two selects ran again, prepared.
            #expect(cache.namesIssued == 4)
            #expect(try await Self.preparedNames(client).count == 2)
        }
    }

    @Test("an optional bound as nil first and as a value later keeps its type")
    func optionalKeepsItsType() async throws {
        try await TestDatabase.withFresh(maximumConnections: 1) { client in
            let cache = StatementCache(capacity: 10)
            func probe(_ value: Int64?) async throws -> Int64 {
                // Without the cast a first `nil` would let PostgreSQL infer `integer` from the -1,
                // and the later 8-byte `bigint` value would no longer fit the prepared parameter.
                let rows = try await client.query(cached: "SELECT coalesce(\(value), -1)::bigint", logger: Self.logger, cache: cache)
                for try await result in rows.decode(Int64.self) { return result }
                throw TestFailure("no row")
            }
            let answers = [try await probe(nil), try await probe(42), try await probe(nil)]
            #expect(answers == [-1, 42, -1])
            #expect(cache.namesIssued == 1)
        }
    }

    @Test("once the names are spent, further statements run unprepared and still answer")
    func boundedNames() async throws {
        try await TestDatabase.withFresh(maximumConnections: 1) { client in
            let cache = StatementCache(capacity: 2)
            for value in Int64(1)...3 {
                for _ in 0..<2 {
                    let rows = try await client.query(
                        cached: CachedQuery(stringLiteral: "SELECT \(value)::bigint"), logger: Self.logger, cache: cache
                    )
                    for try await result in rows.decode(Int64.self) { #expect(result == value) }
                }
            }
            #expect(cache.namesIssued == 2)
            #expect(try await Self.preparedNames(client).count == 2)
        }
    }

    @Test("a text naming a missing schema spends no name, however often it is sent")
    func missingSchemaSpendsNoName() async throws {
        try await TestDatabase.withFresh(maximumConnections: 1) { client in
            let cache = StatementCache(capacity: 10)
            let schema = try TenantSchema(projectId: "demo-project", tenantId: "nowhere")
            for _ in 0..<3 {
                await #expect(throws: PSQLError.self) {
                    try await client.query(
                        cached: "SELECT count(*) FROM \(sql: schema.qualified("items"))", logger: Self.logger, cache: cache
                    )
                }
            }
            #expect(cache.namesIssued == 0)
        }
    }

    @Test("a statement whose preparation failed on one connection works there again once its schema is back")
    func failedPreparationIsNotRemembered() async throws {
        // Three connections: two held by the test, one for the migrator.
        try await TestDatabase.withFresh(maximumConnections: 3) { client in
            let cache = StatementCache(capacity: 10)
            let schema = try TenantSchema(projectId: "demo-project", tenantId: "comes-and-goes")
            let migrator = try TenantMigrator(client: client, migrations: Self.migrations, logger: Self.logger)
            try await migrator.migrate(schema)
            let select: CachedQuery = "SELECT count(*) FROM \(sql: schema.qualified("items")) WHERE owner = \("x")"
            // Two connections held at once: the text earns its name on the first, then the schema
            // goes away before the second ever prepares it.
            try await client.withConnection { first in
                try await client.withConnection { second in
                    try await first.query(cached: select, logger: Self.logger, cache: cache)
                    #expect(cache.namesIssued == 1)
                    try await migrator.drop(schema)
                    await #expect(throws: PSQLError.self) {
                        try await second.query(cached: select, logger: Self.logger, cache: cache)
                    }
                    try await migrator.migrate(schema)
                    for _ in 0..<2 {
                        let rows = try await second.query(cached: select, logger: Self.logger, cache: cache)
                        for try await count in rows.decode(Int64.self) { #expect(count == 0) }
                    }
                }
            }
        }
    }

    @Test("a cached query inside a transaction sees the transaction's own writes")
    func insideTransaction() async throws {
        try await TestDatabase.withFresh(maximumConnections: 2) { client in
            let cache = StatementCache(capacity: 10)
            let schema = try TenantSchema(projectId: "demo-project")
            try await TenantMigrator(client: client, migrations: Self.migrations, logger: Self.logger).migrate(schema)
            let items = schema.qualified("items")
            let owners = try await client.withTransaction(logger: Self.logger) { connection in
                try await connection.query(
                    cached: "INSERT INTO \(sql: items) (id, owner) VALUES (\("t"), \("in-transaction"))",
                    logger: Self.logger, cache: cache
                )
                let rows = try await connection.query(
                    cached: "SELECT owner FROM \(sql: items) WHERE id = \("t")", logger: Self.logger, cache: cache
                )
                var owners: [String] = []
                for try await owner in rows.decode(String.self) { owners.append(owner) }
                return owners
            }
            #expect(owners == ["in-transaction"])
        }
    }

    /// The prepared statements of the pool's (single) connection.
    static func preparedNames(_ client: Database) async throws -> [String] {
        let rows = try await client.query("SELECT name FROM pg_prepared_statements ORDER BY name", logger: logger)
        var names: [String] = []
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }

    struct TestFailure: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
