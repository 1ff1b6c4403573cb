import Contracts
import Foundation
import IdentityToolkit
import JSONRPC
import ServiceKit
import TenantStore

/// Builds session-token: signing keys (sealed at rest, rotated, published), ID tokens,
/// refresh-token families, pending MFA credentials and custom-token checks; tenant schemas
/// provisioned on factor-registry's request.
public enum SessionTokenApp {
    public static func build(_ host: ServiceHost) async throws -> ServiceHost.Parts {
        guard let database = host.database else { preconditionFailure("session-token needs PostgreSQL") }
        let reader = host.settings.reader
        let masterKey = try SecretSealer.masterKey(
            base64: reader.string(forKey: "secrets.masterKey", isSecret: true),
            file: reader.string(
                forKey: "secrets.masterKeyFile",
                default: "\(reader.string(forKey: "tls.directory", default: ".stack/certs"))/session-token-master.key"
            )
        )
        let keyring = SigningKeyring(
            repository: SigningKeyRepository(client: database, sealer: SecretSealer(masterKey: masterKey), logger: host.logger),
            rotationLead: TimeInterval(reader.int(forKey: "keys.rotationLeadSeconds", default: 300)),
            // ID tokens live an hour; keep a superseded key published a little longer.
            retention: TimeInterval(reader.int(forKey: "keys.retentionSeconds", default: 3600 + 300))
        )
        let catalog = try TenantSchemaCatalog(
            client: database, controlMigrations: SessionTokenControlMigrations.all,
            tenantMigrations: SessionTokenMigrations.tenant, logger: host.logger
        )
        var parts = ServiceHost.Parts()
        catalog.register(in: &parts.methods, callers: [.factorRegistry])
        let cacheSeconds = reader.int(forKey: "keys.publishMaxAgeSeconds", default: 60)
        parts.methods.register(PublishSigningKeys.self, callers: .only([ServiceName.gateway.rawValue])) { _, _ in
            .init(
                keys: keyring.published().map {
                    PublicSigningKey(
                        kid: $0.kid, algorithm: "RS256", modulus: $0.modulus, exponent: $0.exponent,
                        certificatePem: $0.certificatePEM
                    )
                },
                maxAgeSeconds: cacheSeconds
            )
        }
        let issuer = IDTokenIssuer(
            keyring: keyring, issuerBase: reader.string(forKey: "tokens.issuerBase", default: "https://securetoken.google.com/")
        )
        let pendingLifetime = Duration.seconds(reader.int(forKey: "mfa.pendingCredentialLifetimeSeconds", default: 600))
        let sessions = SessionRepository(client: database, logger: host.logger, retryWindow: pendingLifetime)
        let sealKey = TokenSealKey(masterKey: masterKey)
        let finishing = FinishingTokens(masterKey: masterKey, sealKey: sealKey)
        parts.methods.register(IssueSession.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            let token =
                try params.consumePendingCredential.map {
                    try finishing.token(finishing: $0, projectId: params.projectId, tenantId: params.tenantId, localId: params.localId)
                }
                ?? RefreshToken(
                    value: SealedRefreshToken(projectId: params.projectId, tenantId: params.tenantId, localId: params.localId)
                        .seal(with: sealKey)
                )
            var answered = params
            answered.authTime = try await sessions.startFamily(params, token: token)
            let idToken = try issuer.sign(issuer.claims(for: answered))
            return .init(idToken: idToken, refreshToken: token.value, expiresIn: String(issuer.lifetime))
        }
        let customTokens = CustomTokenVerifier(
            keys: try reader.stringArray(forKey: "customTokens.serviceAccountFiles", default: []).map(ServiceAccountKey.init),
            acceptUnsigned: reader.bool(forKey: "customTokens.acceptUnsigned", default: host.settings.mode == .development)
        )
        parts.methods.register(VerifyCustomToken.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            try customTokens.verify(params)
        }
        let pending = PendingCredentials(
            client: database, logger: host.logger, lifetime: pendingLifetime, sessions: sessions, finishing: finishing,
            sealKey: sealKey
        )
        parts.methods.register(PublishTokenSealKey.self, callers: .only([ServiceName.gateway.rawValue])) { _, _ in
            .init(key: sealKey.base64)
        }
        parts.methods.register(IssuePendingCredential.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            try await pending.issue(params)
        }
        parts.methods.register(InspectPendingCredential.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            try await pending.inspect(params.mfaPendingCredential, finishing: params.finishing == true)
        }
        parts.methods.register(RevokeFactorSessions.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            .init(revoked: try await sessions.revokeFactor(params))
        }
        parts.methods.register(ForgetAccountSessions.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            .init(deleted: try await sessions.forget(params))
        }
        let refreshSessions = RefreshSessions(client: database, logger: host.logger, sealKey: sealKey)
        let limiter = RateLimiter(client: database, logger: host.logger)
        // A device refreshes about once an hour; many share an address behind NAT.
        let generous = host.settings.mode == .development
        let refreshesPerAddress = RateLimiter.Rule(
            reader, "refresh.perAddress", burst: generous ? 100_000 : 600, perHour: generous ? 1_000_000 : 6_000
        )
        parts.methods.register(InspectRefreshToken.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            if let address = params.clientAddress, !(try await limiter.take("refresh:\(address)", rule: refreshesPerAddress)) {
                throw RPCError(code: .invalidRefreshToken, business: IdentityToolkitError(.tooManyAttemptsTryLater))
            }
            let family = try await refreshSessions.family(of: RefreshToken(value: params.refreshToken))
            return .init(
                projectId: family.projectId, tenantId: family.tenantId, localId: family.localId, signedInAt: family.signedInAt,
                authTime: family.authTime, secondFactorIdentifier: family.secondFactorIdentifier
            )
        }
        parts.methods.register(RefreshSession.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            let presented = RefreshToken(value: params.refreshToken)
            if params.account != nil, let address = params.clientAddress,
                !(try await limiter.take("refresh:\(address)", rule: refreshesPerAddress))
            {
                throw RPCError(code: .invalidRefreshToken, business: IdentityToolkitError(.tooManyAttemptsTryLater))
            }
            let family = try await refreshSessions.family(of: presented)
            if let account = params.account { try RefreshSessions.check(family, against: account) }
            let next = try await refreshSessions.rotate(presented, family: family)
            // The refreshed token repeats the sign-in: first factor, second factor, auth_time.
            let claims = issuer.claims(
                for: .init(
                    projectId: family.projectId, tenantId: family.tenantId, localId: family.localId,
                    signInProvider: family.signInProvider, secondFactor: family.secondFactor,
                    secondFactorIdentifier: family.secondFactorIdentifier, authTime: family.authTime, user: params.user,
                    sessionClaims: family.sessionClaims
                )
            )
            return .init(
                idToken: try issuer.sign(claims), refreshToken: next.value, expiresIn: String(issuer.lifetime),
                localId: family.localId
            )
        }
        parts.methods.register(VerifyIDToken.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            do {
                let claims = try await issuer.verify(params.idToken)
                return .init(
                    projectId: claims.audience, tenantId: claims.tenant, localId: claims.subject, issuedAt: claims.issuedAt,
                    authTime: claims.authTime, signInProvider: claims.signInProvider, secondFactor: claims.signInSecondFactor,
                    secondFactorIdentifier: claims.secondFactorIdentifier
                )
            } catch IDTokenIssuer.VerificationFailure.expired {
                throw RPCError(code: .invalidIDToken, business: IdentityToolkitError(.tokenExpired))
            } catch {
                throw RPCError(code: .invalidIDToken, business: IdentityToolkitError(.invalidIDToken))
            }
        }
        parts.prepare.append {
            try await catalog.migrateAll()
            try await keyring.prepare()
        }
        let keysInterval = Duration.seconds(reader.int(forKey: "keys.refreshSeconds", default: 30))
        // Reloads the keyring, so every instance sees rotations made by others, and deletes keys
        // that can no longer verify anything.
        parts.background.append(
            PeriodicService("signing key refresh", every: keysInterval, logger: host.logger) {
                try await keyring.reload()
                try await keyring.repository.delete(kids: keyring.expired().map(\.kid))
            }
        )
        let pendingSweeper = RetentionSweeper(
            client: database, tenants: catalog.tenantMigrator, rules: [SessionRetention.pendingCredentials], logger: host.logger
        )
        parts.background.append(
            PeriodicService(
                "pending credential sweep", every: .seconds(reader.int(forKey: "mfa.pendingCredentialSweepSeconds", default: 60)),
                logger: host.logger
            ) { try await pendingSweeper.sweep() }
        )
        // The session tables have no index on the columns that decide (one would cost every
        // refresh a write), so each pass scans them: hourly by default.
        let sessionSweeper = RetentionSweeper(
            client: database, tenants: catalog.tenantMigrator,
            rules: [
                SessionRetention.rotatedTokens(
                    .seconds(reader.int(forKey: "sessions.rotatedTokenRetentionSeconds", default: 30 * 24 * 3600))
                ),
                SessionRetention.revokedSessions(
                    .seconds(reader.int(forKey: "sessions.revokedRetentionSeconds", default: 30 * 24 * 3600))
                ),
                RateLimiter.fullBuckets,
            ],
            logger: host.logger
        )
        parts.background.append(
            PeriodicService(
                "session sweep", every: .seconds(reader.int(forKey: "sessions.sweepSeconds", default: 3600)), logger: host.logger
            ) { try await sessionSweeper.sweep() }
        )
        parts.tenantSchemaCount = { try await catalog.schemaCount() }
        parts.adminRoutes = { admin in SigningKeyAdminRoutes(keyring: keyring).add(to: admin) }
        return parts
    }
}
