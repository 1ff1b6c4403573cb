import Contracts
import JSONRPC
import NIOCore
import ServiceKit
import ServiceLifecycle
import TenantStore

/// Builds factor-registry: the tenant registry (projects, tenants, their schemas everywhere and
/// their settings), accounts, enrollment metadata and out-of-band codes.
public enum FactorRegistryApp {
    public static func build(_ host: ServiceHost) async throws -> ServiceHost.Parts {
        guard let database = host.database else { preconditionFailure("factor-registry needs PostgreSQL") }
        let settings = FactorRegistrySettings(host)
        let logger = host.logger
        let catalog = try TenantSchemaCatalog(
            client: database, controlMigrations: FactorRegistryMigrations.control,
            tenantMigrations: FactorRegistryMigrations.tenant, logger: logger
        )
        let activeProjects = ActiveProjects()
        let settingsCache = SettingsCache()
        let events = SecurityEventLog(source: "factor-registry", client: database, registry: host.metrics.registry, logger: logger)
        let projects = TenantRepository(
            client: database, logger: logger, events: events, activeProjects: activeProjects, cache: settingsCache,
            projectDefaults: host.settings.mode == .production ? .productionProjectDefaults : .projectDefaults
        )
        let registry = TenantRegistry(
            repository: projects, catalog: catalog, challenges: host.peer(ChallengeIssuerAPI.self),
            sessions: host.peer(SessionTokenAPI.self),
            logger: logger, defaultProjectId: host.settings.defaultProjectId
        )
        let sealer = SecretSealer(masterKey: try SecretSealer.masterKey(base64: settings.masterKeyBase64, file: settings.masterKeyFile))
        let hasher = PasswordHasher(
            rounds: settings.scrypt.rounds, blockSize: settings.scrypt.blockSize, parallelism: settings.scrypt.parallelism,
            queue: HashingQueue(maximum: settings.maximumQueuedHashes, deadline: host.settings.rpcTimeout)
        )
        let accounts = AccountService(
            accounts: AccountRepository(client: database, events: events, logger: logger), tenants: projects,
            hashers: try PasswordHashers(
                standard: hasher, projectEntries: settings.scryptProjects, sealer: sealer,
                // Half of NIO's blocking pool (one thread per core) for imported hashes (issue 57, F-4).
                importedLane: ImportedHashLane(
                    poolThreads: NIOSingletons.blockingPoolThreadCountSuggestion, maximumWaiting: settings.maximumQueuedHashes,
                    deadline: host.settings.rpcTimeout
                )
            ),
            limits: FirstFactorLimits(
                limiter: RateLimiter(client: database, logger: logger), reader: host.settings.reader,
                development: host.settings.mode == .development, events: events
            )
        )
        let enrollmentRepository = EnrollmentRepository(client: database, events: events, logger: logger)
        let enrollments = EnrollmentService(enrollments: enrollmentRepository, accounts: accounts, maximum: settings.maximumEnrollments)
        let codeRepository = OOBCodeRepository(client: database, logger: logger)
        let identities = FederatedIdentityRepository(client: database, logger: logger)
        // Whoever proves an address owns the account: its first proof, whatever the flow (issue 56).
        let passkeyRepository = PasskeyRepository(client: database, events: events, logger: logger)
        let proof = AddressProof(accounts: accounts.accounts, identities: identities, codes: codeRepository, passkeys: passkeyRepository)
        let oobCodes = OOBCodeService(codes: codeRepository, accounts: accounts, proof: proof, lifetimes: settings.oobCodeLifetimes)

        var parts = ServiceHost.Parts()
        FactorRegistryMethods.registerTenants(&parts.methods, registry: registry, projects: projects, settingsCache: settingsCache)
        FactorRegistryMethods.registerAccounts(
            &parts.methods, accounts: accounts,
            importer: AccountImporter(service: accounts, enrollments: enrollmentRepository, identities: identities),
            export: PasswordExport(keys: PasswordSignerKeyRepository(client: database, logger: logger), accounts: accounts)
        )
        FactorRegistryMethods.registerEnrollments(&parts.methods, enrollments: enrollments)
        // Identity providers: configurations, and sign-in with them (outside calls to the providers).
        let providerClient = try host.outside.client(extraTrustRootsFile: settings.identityProviderTrustRoots)
        let configs = IdentityProviderConfigService(
            repository: IdentityProviderConfigRepository(client: database, logger: logger), accounts: accounts, sealer: sealer
        )
        FactorRegistryMethods.registerIdentityProviders(
            &parts.methods, configs: configs,
            signIn: FederatedSignIn(
                accounts: accounts, identities: identities, proof: proof, configs: configs,
                directory: OpenIDProviderDirectory(client: providerClient, logger: logger), client: providerClient,
                defaults: DefaultSupportedProviders(host.settings.reader), sealer: sealer
            )
        )
        FactorRegistryMethods.registerOobCodes(&parts.methods, codes: oobCodes)
        FactorRegistryMethods.registerPasskeys(
            &parts.methods,
            passkeys: PasskeyService(passkeys: passkeyRepository, accounts: accounts)
        )
        parts.methods.registerAudit(events) { try await accounts.activeSchema(projectId: $0.projectId, tenantId: $0.tenantId) }

        let defaultProject = host.settings.defaultProjectId
        parts.prepare.append {
            try await catalog.migrateAll()
            // Recorded now; its schemas in the other services are provisioned by the reconciler
            // as soon as they answer (they may start after us).
            try await registry.ensureProjectRecorded(defaultProject)
        }
        parts.background += background(
            host, settings: settings, catalog: catalog, registry: registry, projects: projects, enrollments: enrollmentRepository,
            settingsCache: settingsCache
        )
        parts.readiness.append(
            ReadinessCheck(name: "default-project") {
                (try? await registry.isProjectActive(defaultProject)) == true
                    ? DependencyState(ready: true)
                    : DependencyState(ready: false, detail: "project \(defaultProject) not provisioned in every service yet")
            }
        )
        parts.tenantSchemaCount = { try await catalog.schemaCount() }
        parts.adminRoutes = { admin in TenantAdminRoutes(registry: registry).add(to: admin) }
        return parts
    }

    /// The work factor-registry does on its own: reconciliation, sweeps, and following settings changes.
    static func background(
        _ host: ServiceHost, settings: FactorRegistrySettings, catalog: TenantSchemaCatalog, registry: TenantRegistry,
        projects: TenantRepository, enrollments: EnrollmentRepository, settingsCache: SettingsCache
    ) -> [any Service] {
        guard let database = host.database else { return [] }
        let logger = host.logger
        let oobSweeper = RetentionSweeper(
            client: database, tenants: catalog.tenantMigrator,
            rules: [
                OOBCodeRepository.expiredCodes(settings.expiredOobCodeRetention), RateLimiter.fullBuckets,
                FederatedIdentityRepository.expiredNonces,
                SecurityEventLog.retentionDays(host.settings.reader),
            ],
            logger: logger
        )
        let heldSweeper = RetentionSweeper(
            client: database, tenants: catalog.tenantMigrator, rules: [AccountRepository.expiredHolds(settings.heldAccountRetention)],
            logger: logger
        )
        // Secrets challenge-issuer keeps for no enrollment (a crash between an enrollment's or a
        // withdrawal's two steps): checked hourly, once at least an hour old.
        let orphanSweep = OrphanSecretSweep(
            enrollments: enrollments, tenants: projects, challenges: host.peer(ChallengeIssuerAPI.self),
            minimumAge: settings.orphanSecretMinimumAge, logger: logger
        )
        return [
            // Finishes what a crash or an unreachable peer interrupted: projects and tenants left
            // `provisioning` or `deleting` are driven to the end.
            PeriodicService("tenant reconciliation", every: settings.reconcileInterval, start: .immediately, logger: logger) {
                await registry.reconcile()
            },
            PeriodicService("out-of-band code sweep", every: settings.oobCodeSweepInterval, logger: logger) {
                try await oobSweeper.sweep()
            },
            PeriodicService("held account sweep", every: settings.heldAccountSweepInterval, logger: logger) {
                try await heldSweeper.sweep()
            },
            PeriodicService("orphan TOTP secret sweep", every: settings.orphanSecretSweepInterval, logger: logger) {
                try await orphanSweep.sweep()
            },
            SettingsListener(client: database, cache: settingsCache, logger: logger),
        ]
    }
}
