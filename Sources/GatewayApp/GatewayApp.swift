import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit
import ServiceTransport

/// Builds the gateway: the public Identity Toolkit listener, readiness that reaches every other
/// service over mutual TLS, and the internal `/rpc` listener.
public enum GatewayApp {
    public static func build(_ host: ServiceHost) async throws -> ServiceHost.Parts {
        var parts = ServiceHost.Parts()
        parts.readiness = [ServiceName.factorRegistry, .challengeIssuer, .sessionToken].map { host.peerCheck($0) }
        let checks = parts.readiness
        let settings = try GatewaySettings(host)
        // Identity Toolkit's operations, and this server's own admin ones beside them.
        var schemas: DiscoverySchemas?
        for schemaFile in ["identitytoolkit/schemas.json", "identitytoolkit/extensions.json"] {
            guard let schemaPath = ContractDocument.locate(schemaFile, configured: host.settings.contractsDirectory) else {
                throw MissingContract(fileName: schemaFile)
            }
            let document = try DiscoverySchemas(contentsOf: URL(fileURLWithPath: schemaPath))
            schemas = schemas.map { $0.adding(document) } ?? document
        }
        guard let schemas else { throw MissingContract(fileName: "identitytoolkit/schemas.json") }
        let cachedSettings = CachedSettings(registry: host.peer(FactorRegistryAPI.self))
        let credentials = CredentialResolver(
            mode: host.settings.mode,
            admin: AdminAuthenticator(tokenHashesHex: host.settings.adminTokenHashes, mode: host.settings.mode),
            defaultProjectId: host.settings.defaultProjectId, apiKeys: CredentialResolver.parseKeys(settings.apiKeys),
            projectKeys: cachedSettings, adminListenerOnly: settings.adminListener != nil
        )
        let operations = try PublicOperations(host, settings: settings, credentials: credentials, cachedSettings: cachedSettings)
        parts.background.append(operations.settingsWatch)
        let api = PublicAPI(
            router: OperationRouter(schemas: schemas), validator: RequestValidator(schemas: schemas), credentials: credentials,
            handlers: operations.handlers, status: { await status(host, checks) },
            signingKeys: SigningKeySet(client: host.peer(SessionTokenAPI.self)), emulator: operations.emulator,
            demo: DemoPage(mode: host.settings.mode, projectId: host.settings.defaultProjectId),
            securityEventExport: SecurityEventExport(events: operations.securityEvents, credentials: credentials),
            metrics: PublicRequestMetrics(host.metrics), clientAddress: settings.clientAddress,
            allowsPrivateNetworkPreflight: host.settings.mode == .development, logger: host.logger
        )
        parts.background.append(contentsOf: try PublicListeners.make(api, settings: settings, host: host))
        return parts
    }

    /// `GET /`: what is running and whether each service answers.
    static func status(_ host: ServiceHost, _ checks: [ReadinessCheck]) async -> JSONValue {
        var services: [String: JSONValue] = [:]
        for check in checks {
            services[check.name] = .object(["ready": .bool(await host.runCheck(check).ready)])
        }
        return [
            "service": "gateway", "version": .string(ServiceHost.version), "mode": .string(host.settings.mode.rawValue),
            "services": .object(services),
        ]
    }
}
