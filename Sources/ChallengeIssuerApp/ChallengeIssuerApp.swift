import PluginKit
import ServiceKit
import TenantStore

/// Builds challenge-issuer: the factor plugins and their verification sessions (SMS and TOTP),
/// app verification, message delivery (SMS, email, APNs), and the tenant schemas factor-registry
/// asks for.
public enum ChallengeIssuerApp {
    public static func build(_ host: ServiceHost) async throws -> ServiceHost.Parts {
        guard let database = host.database else { preconditionFailure("challenge-issuer needs PostgreSQL") }
        let settings = try ChallengeIssuerSettings(host)
        let reader = host.settings.reader
        let logger = host.logger
        let catalog = try TenantSchemaCatalog(
            client: database, controlMigrations: ChallengeIssuerMigrations.control,
            tenantMigrations: ChallengeIssuerMigrations.tenant, logger: logger
        )
        let outbox = settings.development ? DevelopmentOutbox(client: database, logger: logger) : nil
        let events = SecurityEventLog(source: "challenge-issuer", client: database, registry: host.metrics.registry, logger: logger)
        let masterKey = try SecretSealer.masterKey(base64: settings.masterKeyBase64, file: settings.masterKeyFile)
        let sealer = SecretSealer(masterKey: masterKey)
        let providers = FactorProviders(reader, masterKey: masterKey)
        let budget = try GuessingBudget(reader: reader, development: settings.development)
        let email = EmailDelivery(
            sender: try EmailSenders.configured(reader, mode: host.settings.mode, logger: logger), outbox: outbox,
            appName: settings.appName, logger: logger
        )
        let finished = FinishedSignIns(client: database, logger: logger)
        let totp = TOTPFactors(
            provider: providers.totp, repository: TOTPFactorRepository(client: database, logger: logger), sealer: sealer,
            enrollmentLifetime: settings.totpEnrollmentLifetime, maximumFailures: settings.totpMaximumFailures,
            failureWindow: settings.totpFailureWindow, budget: budget, events: events, finished: finished
        )
        let limiter = RateLimiter(client: database, logger: logger)
        let phone = PhoneVerifications(
            provider: providers.phone, sessions: VerificationSessionRepository(client: database, logger: logger),
            routes: try SMSRoutes.configured(reader, mode: host.settings.mode, outside: host.outside, logger: logger), sealer: sealer,
            appProof: AppProofCheck(
                verifiers: try AppVerifiers.configured(
                    reader, mode: host.settings.mode, outside: host.outside, database: database, logger: logger),
                attestations: .once(
                    within: AppVerifiers.playIntegrityMaximumAge(reader), limiter: limiter),
                logger: logger, emulator: try AppVerifiers.emulator(reader, mode: host.settings.mode)
            ),
            limiter: limiter, perNumber: settings.smsPerNumber, perAddress: settings.smsPerAddress,
            budget: budget,
            defense: SMSDefense(
                repository: SMSDefenseRepository(client: database, logger: logger), limits: settings.smsDefense,
                alerts: SMSDefenseAlerts(
                    registry: host.metrics.registry,
                    webhook: try settings.smsDefenseWebhook.map {
                        ($0, try host.outside.client(extraTrustRootsFile: settings.smsDefenseWebhookTrustRoots))
                    },
                    logger: logger
                ),
                events: events, logger: logger
            ),
            events: events, finished: finished, outbox: outbox, lifetime: settings.smsSessionLifetime,
            maximumAttempts: settings.smsMaximumAttempts,
            appName: settings.smsAppName, logger: logger
        )
        let receipts = IosReceipts(
            client: database, pushes: try AppVerifiers.pushSender(reader, logger: logger),
            bundleIDs: AppVerifiers.perProject(settings.apnsProjects), lifetime: settings.iosReceiptLifetime,
            suggestedTimeout: settings.iosSuggestedTimeoutSeconds, limiter: limiter,
            perAddress: settings.iosPerAddress, logger: logger
        )

        var parts = ServiceHost.Parts()
        catalog.register(in: &parts.methods, callers: [.factorRegistry])
        ChallengeIssuerMethods.registerEmail(&parts.methods, email: email)
        let recovery = RecoveryCodes(
            repository: RecoveryCodeRepository(client: database, logger: logger, events: events, finished: finished),
            hashKey: sealer.derivedKey(purpose: RecoveryCode.keyPurpose), logger: logger,
            maximumFailures: settings.totpMaximumFailures, failureWindow: settings.totpFailureWindow, budget: budget, events: events,
            finished: finished
        )
        ChallengeIssuerMethods.registerTOTP(&parts.methods, totp: totp, recovery: recovery)
        ChallengeIssuerMethods.registerPhone(
            &parts.methods, phone: phone, proofs: PhoneProofs(sessions: VerificationSessionRepository(client: database, logger: logger)),
            receipts: receipts
        )
        ChallengeIssuerMethods.registerAccounts(&parts.methods, challenges: AccountChallenges(client: database, logger: logger))
        ChallengeIssuerMethods.registerSMSDefense(&parts.methods, defense: phone.defense)
        ChallengeIssuerMethods.registerPasskeys(
            &parts.methods,
            challenges: PasskeyChallenges(
                client: database, lifetime: settings.passkeyChallengeLifetime, limiter: limiter,
                perAddress: settings.passkeyChallengesPerAddress, logger: logger
            )
        )
        parts.methods.registerAudit(events) { try ScopeSchema.of($0.projectId, $0.tenantId) }

        let sweeper = RetentionSweeper(
            client: database, tenants: catalog.tenantMigrator,
            rules: [
                VerificationSessionRepository.expiredSessions(settings.expiredSessionRetention), IosReceipts.expiredReceipts,
                PasskeyChallenges.expiredPasskeyChallenges(settings.expiredSessionRetention), RateLimiter.fullBuckets,
                SMSDefenseRepository.smsSends, SMSDefenseRepository.smsDays, SecurityEventLog.retentionDays(reader),
                FinishedSignIns.retention,
            ] + (settings.development ? [DevelopmentOutbox.expiredMessages(settings.developmentOutboxRetention)] : []),
            logger: logger
        )
        parts.background.append(
            PeriodicService("verification sweep", every: settings.sweepInterval, logger: logger) { try await sweeper.sweep() }
        )
        parts.prepare.append { try await catalog.migrateAll() }
        parts.tenantSchemaCount = { try await catalog.schemaCount() }
        return parts
    }
}
