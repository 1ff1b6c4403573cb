import Contracts
import ServiceKit
import ServiceLifecycle
import TenantStore

/// Builds session-token: signing keys (sealed at rest, rotated, published), ID tokens,
/// refresh-token families, pending MFA credentials and custom-token checks; tenant schemas
/// provisioned on factor-registry's request.
public enum SessionTokenApp {
    public static func build(_ host: ServiceHost) async throws -> ServiceHost.Parts {
        guard let database = host.database else { preconditionFailure("session-token needs PostgreSQL") }
        let settings = SessionTokenSettings(host)
        // challenge-issuer remembers a finished sign-in this long (decision 22); a credential that
        // outlived that memory could pass a second time.
        guard (1...3600).contains(settings.pendingCredentialLifetime.components.seconds) else {
            throw InvalidSetting(key: "mfa.pendingCredentialLifetimeSeconds", reason: "must be 1-3600 seconds")
        }
        let logger = host.logger
        let masterKey = try SecretSealer.masterKey(base64: settings.masterKeyBase64, file: settings.masterKeyFile)
        let keyring = SigningKeyring(
            repository: SigningKeyRepository(client: database, sealer: SecretSealer(masterKey: masterKey), logger: logger),
            rotationLead: settings.keyRotationLead, retention: settings.keyRetention
        )
        let catalog = try TenantSchemaCatalog(
            client: database, controlMigrations: SessionTokenControlMigrations.all,
            tenantMigrations: SessionTokenMigrations.tenant, logger: logger
        )
        let issuer = IDTokenIssuer(keyring: keyring, issuerBase: settings.issuerBase)
        let sessions = SessionRepository(client: database, logger: logger, retryWindow: settings.pendingCredentialLifetime)
        let sealKey = TokenSealKey(masterKey: masterKey)
        let finishing = FinishingTokens(masterKey: masterKey, sealKey: sealKey)

        let events = SecurityEventLog(source: "session-token", client: database, registry: host.metrics.registry, logger: logger)
        var parts = ServiceHost.Parts()
        catalog.register(in: &parts.methods, callers: [.factorRegistry])
        parts.methods.registerAudit(events) { try ScopeSchema.of($0.projectId, $0.tenantId) }
        SessionTokenMethods.registerKeys(
            &parts.methods, keyring: keyring, maxAgeSeconds: settings.keyPublishMaxAgeSeconds, sealKey: sealKey
        )
        SessionTokenMethods.registerSessions(
            &parts.methods,
            issuance: SessionIssuance(
                sessions: sessions, issuer: issuer, finishing: finishing, sealKey: sealKey,
                counters: LabeledCounters(registry: host.metrics.registry)
            ),
            refresh: RefreshExchange(
                refreshSessions: RefreshSessions(sessions: sessions, logger: logger, sealKey: sealKey, events: events), issuer: issuer,
                limiter: RateLimiter(client: database, logger: logger), perAddress: settings.refreshesPerAddress
            ),
            sessions: sessions, issuer: issuer
        )
        SessionTokenMethods.registerBlockingEvents(&parts.methods, signer: BlockingEventSigner(issuer: issuer, events: events))
        SessionTokenMethods.registerSignInSteps(
            &parts.methods,
            pending: PendingCredentials(
                client: database, logger: logger, lifetime: settings.pendingCredentialLifetime, sessions: sessions,
                finishing: finishing, sealKey: sealKey
            ),
            customTokens: CustomTokenVerifier(
                keys: try settings.serviceAccountFiles.map(ServiceAccountKey.init), acceptUnsigned: settings.acceptUnsignedCustomTokens
            )
        )
        parts.prepare.append {
            try await catalog.migrateAll()
            try await keyring.prepare()
        }
        parts.background += background(host, settings: settings, keyring: keyring, catalog: catalog)
        parts.tenantSchemaCount = { try await catalog.schemaCount() }
        parts.adminRoutes = { admin in SigningKeyAdminRoutes(keyring: keyring).add(to: admin) }
        return parts
    }

    /// Key reloads and the sweeps of what sessions leave behind.
    static func background(
        _ host: ServiceHost, settings: SessionTokenSettings, keyring: SigningKeyring, catalog: TenantSchemaCatalog
    ) -> [any Service] {
        guard let database = host.database else { return [] }
        let logger = host.logger
        let pendingSweeper = RetentionSweeper(
            client: database, tenants: catalog.tenantMigrator, rules: [PendingCredentials.expired], logger: logger
        )
        // The session tables have no index on the columns that decide (one would cost every
        // refresh a write), so each pass scans them: hourly by default.
        let sessionSweeper = RetentionSweeper(
            client: database, tenants: catalog.tenantMigrator,
            rules: [
                SessionRepository.rotatedTokens(settings.rotatedTokenRetention),
                SessionRepository.revokedSessions(settings.revokedSessionRetention), RateLimiter.fullBuckets,
                SecurityEventLog.retentionDays(host.settings.reader),
            ],
            logger: logger
        )
        return [
            // Reloads the keyring, so every instance sees rotations made by others, and deletes keys
            // that can no longer verify anything.
            PeriodicService("signing key refresh", every: settings.keyRefreshInterval, logger: logger) {
                try await keyring.reload()
                try await keyring.repository.delete(kids: keyring.expired().map(\.kid))
            },
            PeriodicService("pending credential sweep", every: settings.pendingCredentialSweepInterval, logger: logger) {
                try await pendingSweeper.sweep()
            },
            PeriodicService("session sweep", every: settings.sessionSweepInterval, logger: logger) { try await sessionSweeper.sweep() },
        ]
    }
}
