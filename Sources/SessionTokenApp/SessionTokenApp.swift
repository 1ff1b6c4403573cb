import Contracts
import ServiceKit

/// Builds session-token: signing keys and tokens (later issues), tenant schemas provisioned on
/// factor-registry's request.
public enum SessionTokenApp {
    public static func build(_ host: ServiceHost) async throws -> ServiceHost.Parts {
        guard let database = host.database else { preconditionFailure("session-token needs PostgreSQL") }
        let catalog = try TenantSchemaCatalog(
            client: database, controlMigrations: [], tenantMigrations: SessionTokenMigrations.tenant,
            logger: host.logger
        )
        var parts = ServiceHost.Parts()
        catalog.register(in: &parts.methods, callers: [.factorRegistry])
        parts.prepare.append { try await catalog.migrateAll() }
        parts.tenantSchemaCount = { try await catalog.schemaCount() }
        return parts
    }
}
