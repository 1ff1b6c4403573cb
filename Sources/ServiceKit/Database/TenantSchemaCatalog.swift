import Contracts
import JSONRPC
import Logging
import PostgresNIO
import ServiceTransport
import TenantStore

/// A data service's view of its tenant schemas: migrates them all at start-up, provisions and
/// drops them on request, and answers how many there are.
public struct TenantSchemaCatalog: Sendable {
    public let client: Database
    /// The service's own tenant-independent tables (schema `control`).
    public let controlMigrator: TenantMigrator
    /// The tables every tenant schema holds.
    public let tenantMigrator: TenantMigrator

    public init(
        client: Database, controlMigrations: [TenantMigration], tenantMigrations: [TenantMigration], logger: Logger
    ) throws {
        self.client = client
        controlMigrator = try TenantMigrator(client: client, migrations: controlMigrations, logger: logger)
        tenantMigrator = try TenantMigrator(client: client, migrations: tenantMigrations, logger: logger)
    }

    /// Brings the control schema and every existing tenant schema up to date; run before serving.
    public func migrateAll() async throws {
        if !controlMigrator.migrations.isEmpty {
            try await controlMigrator.migrate(.control)
        }
        for schema in try await tenantMigrator.existingSchemas() {
            try await tenantMigrator.migrate(schema)
        }
    }

    public func schemaCount() async throws -> Int {
        try await tenantMigrator.existingSchemas().count
    }

    /// Creates (or completes) the scope's schema. Idempotent.
    public func provision(_ scope: TenantScope) async throws -> ProvisionTenantSchema.Result {
        let schema = try ScopeSchema.of(scope)
        let applied = try await tenantMigrator.migrate(schema)
        return .init(schema: schema.name, migrationsApplied: applied)
    }

    /// Drops the scope's schema. Idempotent.
    public func drop(_ scope: TenantScope) async throws -> DropTenantSchema.Result {
        let schema = try ScopeSchema.of(scope)
        return .init(schema: schema.name, dropped: try await tenantMigrator.drop(schema))
    }

    /// Registers `tenantSchema.provision` and `tenantSchema.drop`, callable by `callers` only.
    public func register(in table: inout RPCMethodTable, callers: Set<ServiceName>) {
        let policy = RPCCallerPolicy.only(Set(callers.map(\.rawValue)))
        table.register(ProvisionTenantSchema.self, callers: policy) { scope, _ in
            try await provision(scope)
        }
        table.register(DropTenantSchema.self, callers: policy) { scope, _ in
            try await drop(scope)
        }
    }
}
