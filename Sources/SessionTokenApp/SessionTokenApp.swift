import Contracts
import Foundation
import JSONRPC
import ServiceKit

/// Builds session-token: signing keys (sealed at rest, rotated, published), and in later issues
/// ID tokens, refresh-token families and pending MFA credentials; tenant schemas provisioned on
/// factor-registry's request.
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
        let sessions = SessionRepository(client: database, logger: host.logger)
        parts.methods.register(IssueSession.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            let token = RefreshToken.make(projectId: params.projectId, tenantId: params.tenantId)
            try await sessions.startFamily(params, token: token)
            let idToken = try issuer.sign(issuer.claims(for: params))
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
            client: database, logger: host.logger,
            lifetime: .seconds(reader.int(forKey: "mfa.pendingCredentialLifetimeSeconds", default: 600))
        )
        parts.methods.register(IssuePendingCredential.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            try await pending.issue(params)
        }
        parts.methods.register(InspectPendingCredential.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            try await pending.inspect(params.mfaPendingCredential)
        }
        parts.methods.register(RevokeFactorSessions.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            .init(revoked: try await sessions.revokeFactor(params))
        }
        let refreshSessions = RefreshSessions(client: database, logger: host.logger)
        parts.methods.register(InspectRefreshToken.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            let family = try await refreshSessions.family(of: RefreshToken(value: params.refreshToken))
            return .init(
                projectId: family.projectId, tenantId: family.tenantId, localId: family.localId, signedInAt: family.signedInAt
            )
        }
        parts.methods.register(RefreshSession.self, callers: .only([ServiceName.gateway.rawValue])) { params, _ in
            let presented = RefreshToken(value: params.refreshToken)
            let family = try await refreshSessions.family(of: presented)
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
                throw RPCError(code: .invalidIDToken, identityToolkitError: "TOKEN_EXPIRED")
            } catch {
                throw RPCError(code: .invalidIDToken, identityToolkitError: "INVALID_ID_TOKEN")
            }
        }
        parts.prepare.append {
            try await catalog.migrateAll()
            try await keyring.prepare()
        }
        parts.background.append(
            SigningKeyRefresher(
                keyring: keyring, interval: .seconds(reader.int(forKey: "keys.refreshSeconds", default: 30)), logger: host.logger
            )
        )
        parts.background.append(
            PendingCredentialSweeper(
                catalog: catalog, interval: .seconds(reader.int(forKey: "mfa.pendingCredentialSweepSeconds", default: 60)),
                logger: host.logger
            )
        )
        parts.tenantSchemaCount = { try await catalog.schemaCount() }
        parts.adminRoutes = { admin in SigningKeyAdminRoutes(keyring: keyring).add(to: admin) }
        return parts
    }
}
