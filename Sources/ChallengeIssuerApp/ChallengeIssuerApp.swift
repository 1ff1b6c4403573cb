import Contracts
import FactorSMS
import FactorTOTP
import JSONRPC
import PluginKit
import ServiceKit
import TenantStore

/// Builds challenge-issuer: the factor plugins and their verification sessions (SMS and TOTP),
/// app verification, message delivery (SMS, email, APNs), and the tenant schemas factor-registry
/// asks for.
public enum ChallengeIssuerApp {
    public static func build(_ host: ServiceHost) async throws -> ServiceHost.Parts {
        guard let database = host.database else { preconditionFailure("challenge-issuer needs PostgreSQL") }
        let catalog = try TenantSchemaCatalog(
            client: database, controlMigrations: ChallengeIssuerMigrations.control,
            tenantMigrations: ChallengeIssuerMigrations.tenant,
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
        parts.methods.register(ForgetOutboxOobCode.self, callers: gatewayOnly) { params, _ in
            try await email.forget(params)
            return RPCEmpty()
        }

        let reader = host.settings.reader
        let sealer = SecretSealer(
            masterKey: try SecretSealer.masterKey(
                base64: reader.string(forKey: "secrets.masterKey", isSecret: true),
                file: reader.string(
                    forKey: "secrets.masterKeyFile",
                    default: "\(reader.string(forKey: "tls.directory", default: ".stack/certs"))/challenge-issuer-master.key"
                )
            )
        )
        let providers = FactorProviders.configured(reader)
        let budget = try GuessingBudget(reader: reader, development: host.settings.mode == .development)
        let attestationOnce = RateLimiter.Rule(
            capacity: 1, refillPerSecond: 1 / Double(AppVerifiers.playIntegrityMaximumAge(reader).components.seconds)
        )
        let totp = TotpFactors(
            provider: providers["totp"], client: database, sealer: sealer, logger: host.logger,
            enrollmentLifetime: .seconds(reader.int(forKey: "totp.enrollmentLifetimeSeconds", default: 300)),
            maximumFailures: reader.int(forKey: "totp.maximumFailures", default: 5),
            failureWindow: .seconds(reader.int(forKey: "totp.failureWindowSeconds", default: 300)),
            budget: budget
        )
        parts.methods.register(StartTotpEnrollment.self, callers: gatewayOnly) { params, _ in try await totp.startEnrollment(params) }
        parts.methods.register(FinalizeTotpEnrollment.self, callers: gatewayOnly) { params, _ in
            try await totp.finalizeEnrollment(params)
            return RPCEmpty()
        }
        parts.methods.register(VerifyTotp.self, callers: gatewayOnly) { params, _ in
            try await totp.verify(params)
            return RPCEmpty()
        }
        // The gateway deletes a withdrawn factor's secret; factor-registry an orphan's (a secret whose
        // enrollment was never recorded or whose deletion failed: OrphanSecretSweep).
        let gatewayOrRegistry = RPCCallerPolicy.only([ServiceName.gateway.rawValue, ServiceName.factorRegistry.rawValue])
        parts.methods.register(DeleteTotpFactor.self, callers: gatewayOrRegistry) { params, _ in
            try await totp.delete(params)
            return RPCEmpty()
        }
        parts.methods.register(ListStoredTotpFactors.self, callers: .only([ServiceName.factorRegistry.rawValue])) { params, _ in
            try await totp.listStored(params)
        }
        let accountChallenges = AccountChallenges(client: database, logger: host.logger)
        parts.methods.register(ForgetAccountChallenges.self, callers: gatewayOnly) { params, _ in
            .init(deleted: try await accountChallenges.forget(params))
        }

        let generous = development
        let perNumber = RateLimiter.Rule(reader, "sms.rateLimit.perNumber", burst: generous ? 60 : 5, perHour: generous ? 3600 : 10)
        let perAddress = RateLimiter.Rule(reader, "sms.rateLimit.perAddress", burst: generous ? 120 : 10, perHour: generous ? 7200 : 50)
        // verifyIosClient sends a push per call: limited per client address like SMS sends.
        let iosPerAddress = RateLimiter.Rule(
            reader, "appVerification.ios.rateLimit.perAddress", burst: generous ? 120 : 10, perHour: generous ? 7200 : 50
        )
        let phone = PhoneVerifications(
            provider: providers["phone"] as? SMSFactorProvider, client: database,
            sender: try SMSSenders.configured(reader, mode: host.settings.mode, outside: host.outside, logger: host.logger),
            verifiers: try AppVerifiers.configured(
                reader, mode: host.settings.mode, outside: host.outside, database: database, logger: host.logger
            ),
            limiter: RateLimiter(client: database, logger: host.logger),
            perNumber: perNumber,
            perAddress: perAddress,
            budget: budget,
            attestationOnce: attestationOnce,
            outbox: development ? DevelopmentOutbox(client: database, logger: host.logger) : nil,
            lifetime: .seconds(reader.int(forKey: "sms.sessionLifetimeSeconds", default: 600)),
            maximumAttempts: reader.int(forKey: "sms.maximumAttempts", default: 5),
            appName: reader.string(forKey: "sms.appName", default: reader.string(forKey: "email.appName", default: "your app")),
            logger: host.logger
        )
        parts.methods.register(StartPhoneVerification.self, callers: gatewayOnly) { params, _ in try await phone.start(params) }
        parts.methods.register(VerifyPhoneCode.self, callers: gatewayOnly) { params, _ in try await phone.verify(params) }
        let proofs = PhoneProofs(client: database, logger: host.logger)
        parts.methods.register(IssuePhoneProof.self, callers: gatewayOnly) { params, _ in try await proofs.issue(params) }
        parts.methods.register(RedeemPhoneProof.self, callers: gatewayOnly) { params, _ in
            try await proofs.redeem(params)
            return RPCEmpty()
        }
        parts.methods.register(ListOutboxVerificationCodes.self, callers: gatewayOnly) { params, _ in
            try await phone.verificationCodes(params)
        }
        let receipts = IosReceipts(
            client: database, pushes: try AppVerifiers.pushSender(reader, logger: host.logger),
            bundleIDs: AppVerifiers.perProject(reader.stringArray(forKey: "appVerification.apns.projects", default: [])),
            lifetime: .seconds(reader.int(forKey: "appVerification.ios.receiptLifetimeSeconds", default: 300)),
            suggestedTimeout: reader.int(forKey: "appVerification.ios.suggestedTimeoutSeconds", default: 5),
            limiter: RateLimiter(client: database, logger: host.logger), perAddress: iosPerAddress, logger: host.logger
        )
        parts.methods.register(IssueIosReceipt.self, callers: gatewayOnly) { params, _ in try await receipts.issue(params) }

        let sweeper = RetentionSweeper(
            client: database, tenants: catalog.tenantMigrator,
            rules: [
                ChallengeRetention.expiredSessions(
                    .seconds(reader.int(forKey: "verification.expiredRetentionSeconds", default: 24 * 3600))
                ),
                ChallengeRetention.expiredReceipts,
                RateLimiter.fullBuckets,
            ]
                + (development
                    ? [
                        ChallengeRetention.developmentOutbox(
                            .seconds(reader.int(forKey: "developmentOutbox.retentionSeconds", default: 3 * 24 * 3600))
                        )
                    ] : []),
            logger: host.logger
        )
        parts.background.append(
            PeriodicService(
                "verification sweep", every: .seconds(reader.int(forKey: "verification.sweepSeconds", default: 60)), logger: host.logger
            ) { try await sweeper.sweep() }
        )

        parts.prepare.append { try await catalog.migrateAll() }
        parts.tenantSchemaCount = { try await catalog.schemaCount() }
        return parts
    }
}
