import Contracts
import JSONRPC
import PluginKit
import ServiceKit

/// Builds challenge-issuer: message delivery (email now; SMS, factor plugins and verification
/// sessions in later issues) and the tenant schemas factor-registry asks for.
public enum ChallengeIssuerApp {
    public static func build(_ host: ServiceHost) async throws -> ServiceHost.Parts {
        guard let database = host.database else { preconditionFailure("challenge-issuer needs PostgreSQL") }
        let catalog = try TenantSchemaCatalog(
            client: database, controlMigrations: [], tenantMigrations: ChallengeIssuerMigrations.tenant,
            logger: host.logger
        )
        var parts = ServiceHost.Parts()
        catalog.register(in: &parts.methods, callers: [.factorRegistry])

        let development = host.settings.mode == .development
        let email = EmailDelivery(
            sender: try EmailSenders.configured(host.settings.reader, mode: host.settings.mode, logger: host.logger),
            outbox: development ? DevelopmentOutbox(client: database, logger: host.logger) : nil,
            appName: host.settings.reader.string(forKey: "email.appName", default: "your app"),
            logger: host.logger
        )
        let gatewayOnly = RPCCallerPolicy.only([ServiceName.gateway.rawValue])
        parts.methods.register(SendEmail.self, callers: gatewayOnly) { params, _ in try await email.send(params) }
        parts.methods.register(ListOutboxOobCodes.self, callers: gatewayOnly) { params, _ in try await email.oobCodes(params) }

        parts.prepare.append { try await catalog.migrateAll() }
        parts.tenantSchemaCount = { try await catalog.schemaCount() }
        return parts
    }
}
