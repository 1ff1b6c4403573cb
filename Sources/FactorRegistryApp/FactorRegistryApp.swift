import Contracts
import JSONRPC
import ServiceKit
import TenantStore

/// Builds factor-registry: the tenant registry (projects, tenants, their schemas everywhere and
/// their settings), accounts, enrollment metadata and out-of-band codes.
public enum FactorRegistryApp {
    public static func build(_ host: ServiceHost) async throws -> ServiceHost.Parts {
        guard let database = host.database else { preconditionFailure("factor-registry needs PostgreSQL") }
        let catalog = try TenantSchemaCatalog(
            client: database,
            controlMigrations: FactorRegistryMigrations.control,
            tenantMigrations: FactorRegistryMigrations.tenant,
            logger: host.logger
        )
        let activeProjects = ActiveProjects()
        let settingsCache = SettingsCache()
        let registry = TenantRegistry(
            repository: TenantRepository(client: database, logger: host.logger, activeProjects: activeProjects, cache: settingsCache),
            catalog: catalog,
            peers: [host.client(for: .challengeIssuer), host.client(for: .sessionToken)],
            logger: host.logger,
            defaultProjectId: host.settings.defaultProjectId
        )
        let defaultProject = host.settings.defaultProjectId
        let interval = Duration.milliseconds(host.settings.reader.int(forKey: "reconcile.intervalMs", default: 2000))

        var parts = ServiceHost.Parts()
        let gatewayOnly = RPCCallerPolicy.only([ServiceName.gateway.rawValue])
        parts.methods.register(CreateTenant.self, callers: gatewayOnly) { params, _ in try await registry.create(params) }
        parts.methods.register(GetTenant.self, callers: gatewayOnly) { params, _ in try await registry.get(params) }
        parts.methods.register(ListTenants.self, callers: gatewayOnly) { params, _ in try await registry.list(params) }
        parts.methods.register(UpdateTenant.self, callers: gatewayOnly) { params, _ in try await registry.update(params) }
        parts.methods.register(GetProjectConfig.self, callers: gatewayOnly) { params, _ in
            try await registry.projectConfig(params.projectId)
        }
        parts.methods.register(UpdateProjectConfig.self, callers: gatewayOnly) { params, _ in
            try await registry.updateProjectConfig(params)
        }
        parts.methods.register(ResolveSettings.self, callers: gatewayOnly) { params, _ in try await registry.resolve(params) }
        parts.methods.register(WatchSettings.self, callers: gatewayOnly) { params, _ in
            // Below the callers' RPC timeout (10 s by default), so a quiet watch ends as an answer.
            let wait = Duration.milliseconds(min(max(params.waitMilliseconds, 0), 8_000))
            let now = await settingsCache.change(after: params.generation, within: wait)
            return .init(generation: now.generation, listening: now.listening)
        }
        let projects = TenantRepository(client: database, logger: host.logger, activeProjects: activeProjects, cache: settingsCache)
        parts.methods.register(ResolveAPIKey.self, callers: gatewayOnly) { params, _ in
            guard params.apiKey.utf8.count <= 128, let projectId = try await projects.project(forAPIKey: params.apiKey) else {
                throw RPCError(code: .unknownAPIKey, message: "Unknown API key")
            }
            return .init(projectId: projectId)
        }
        parts.methods.register(DeleteTenant.self, callers: gatewayOnly) { params, _ in
            try await registry.delete(params)
            return RPCEmpty()
        }
        let reader = host.settings.reader
        let hasher = PasswordHasher(
            rounds: reader.int(forKey: "passwords.scrypt.rounds", default: 16384),
            blockSize: reader.int(forKey: "passwords.scrypt.blockSize", default: 8),
            parallelism: reader.int(forKey: "passwords.scrypt.parallelism", default: 1),
            queue: HashingQueue(maximum: reader.int(forKey: "passwords.maximumQueued", default: 64))
        )
        let limits = FirstFactorLimits(
            limiter: RateLimiter(client: database, logger: host.logger), reader: reader,
            development: host.settings.mode == .development
        )
        let accounts = AccountService(
            accounts: AccountRepository(client: database, logger: host.logger),
            tenants: TenantRepository(client: database, logger: host.logger, activeProjects: activeProjects, cache: settingsCache),
            hashers: try PasswordHashers(
                standard: hasher, projectEntries: reader.stringArray(forKey: "passwords.scrypt.projects", default: [])
            ),
            limits: limits
        )
        parts.methods.register(SignUpAccount.self, callers: gatewayOnly) { params, _ in try await accounts.signUp(params) }
        parts.methods.register(GetAccount.self, callers: gatewayOnly) { params, _ in try await accounts.get(params) }
        parts.methods.register(CreateAccount.self, callers: gatewayOnly) { params, _ in try await accounts.create(params) }
        parts.methods.register(FindAccounts.self, callers: gatewayOnly) { params, _ in try await accounts.find(params) }
        parts.methods.register(UpdateAccount.self, callers: gatewayOnly) { params, _ in try await accounts.update(params) }
        parts.methods.register(RecordSignIn.self, callers: gatewayOnly) { params, _ in try await accounts.recordSignIn(params) }
        parts.methods.register(ListAccounts.self, callers: gatewayOnly) { params, _ in try await accounts.list(params) }
        parts.methods.register(DeleteAccounts.self, callers: gatewayOnly) { params, _ in try await accounts.deleteMany(params) }
        parts.methods.register(DeleteAccount.self, callers: gatewayOnly) { params, _ in
            try await accounts.delete(params)
            return RPCEmpty()
        }
        parts.methods.register(VerifyPassword.self, callers: gatewayOnly) { params, _ in
            try await accounts.verifyPassword(params)
        }
        parts.methods.register(SignInWithPhone.self, callers: gatewayOnly) { params, _ in
            try await accounts.signInWithPhone(params)
        }
        let enrollments = EnrollmentService(
            enrollments: EnrollmentRepository(client: database, logger: host.logger), accounts: accounts,
            maximum: reader.int(forKey: "enrollments.maximum", default: 5)
        )
        parts.methods.register(AddEnrollment.self, callers: gatewayOnly) { params, _ in try await enrollments.add(params) }
        parts.methods.register(RemoveEnrollment.self, callers: gatewayOnly) { params, _ in try await enrollments.remove(params) }
        parts.methods.register(ReplaceEnrollments.self, callers: gatewayOnly) { params, _ in try await enrollments.replace(params) }
        let importer = AccountImporter(service: accounts, enrollments: EnrollmentRepository(client: database, logger: host.logger))
        parts.methods.register(ImportAccounts.self, callers: gatewayOnly) { params, _ in try await importer.run(params) }
        parts.methods.register(DeleteAllAccounts.self, callers: gatewayOnly) { params, _ in
            try await accounts.deleteAll(params)
            return RPCEmpty()
        }
        let oobCodes = OobCodeService(
            codes: OobCodeRepository(client: database, logger: host.logger), accounts: accounts,
            lifetimes: OobCodeLifetimes(
                standard: .seconds(reader.int(forKey: "oobCodes.lifetimeSeconds", default: 3 * 24 * 3600)),
                passwordReset: .seconds(reader.int(forKey: "oobCodes.passwordResetLifetimeSeconds", default: 3600)),
                emailSignIn: .seconds(reader.int(forKey: "oobCodes.emailSignInLifetimeSeconds", default: 6 * 3600))
            )
        )
        parts.methods.register(CreateOobCode.self, callers: gatewayOnly) { params, _ in try await oobCodes.create(params) }
        parts.methods.register(InspectOobCode.self, callers: gatewayOnly) { params, _ in try await oobCodes.inspect(params) }
        parts.methods.register(ApplyOobCode.self, callers: gatewayOnly) { params, _ in try await oobCodes.apply(params) }
        parts.methods.register(SignInWithEmailLink.self, callers: gatewayOnly) { params, _ in
            try await oobCodes.signInWithEmailLink(params)
        }
        parts.prepare.append {
            try await catalog.migrateAll()
            // Recorded now; its schemas in the other services are provisioned by the reconciler
            // as soon as they answer (they may start after us).
            try await registry.ensureProjectRecorded(defaultProject)
        }
        // Finishes what a crash or an unreachable peer interrupted: projects and tenants left
        // `provisioning` or `deleting` are driven to the end.
        parts.background.append(
            PeriodicService("tenant reconciliation", every: interval, start: .immediately, logger: host.logger) {
                await registry.reconcile()
            }
        )
        let oobSweeper = RetentionSweeper(
            client: database, tenants: catalog.tenantMigrator,
            rules: [
                OobCodeRepository.expiredCodes(
                    .seconds(reader.int(forKey: "oobCodes.expiredRetentionSeconds", default: 24 * 3600))
                ),
                RateLimiter.fullBuckets,
            ],
            logger: host.logger
        )
        parts.background.append(
            PeriodicService(
                "out-of-band code sweep", every: .seconds(reader.int(forKey: "oobCodes.sweepSeconds", default: 600)),
                logger: host.logger
            ) { try await oobSweeper.sweep() }
        )
        // Secrets challenge-issuer keeps for no enrollment (a crash between an enrollment's or a
        // withdrawal's two steps): checked hourly, once at least an hour old.
        let orphanSweep = OrphanSecretSweep(
            client: database, tenants: projects, challenges: host.client(for: .challengeIssuer),
            minimumAge: .seconds(reader.int(forKey: "orphanSecrets.minimumAgeSeconds", default: 3600)), logger: host.logger
        )
        parts.background.append(
            PeriodicService(
                "orphan TOTP secret sweep", every: .seconds(reader.int(forKey: "orphanSecrets.sweepSeconds", default: 3600)),
                logger: host.logger
            ) { try await orphanSweep.sweep() }
        )
        parts.background.append(SettingsListener(client: database, cache: settingsCache, logger: host.logger))
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
}
