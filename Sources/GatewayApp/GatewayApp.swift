import Contracts
import Foundation
import Hummingbird
import HummingbirdHTTP2
import IdentityToolkit
import JSONRPC
import ServiceKit

/// Builds the gateway: the public Identity Toolkit listener, readiness that reaches every other
/// service over mutual TLS, and the internal `/rpc` listener.
public enum GatewayApp {
    public static func build(_ host: ServiceHost) async throws -> ServiceHost.Parts {
        let peers: [ServiceName] = [.factorRegistry, .challengeIssuer, .sessionToken]
        var parts = ServiceHost.Parts()
        parts.readiness = peers.map { host.peerCheck($0) }

        let schemaFile = "identitytoolkit/schemas.json"
        guard let schemaPath = ContractDocument.locate(schemaFile, configured: host.settings.contractsDirectory) else {
            throw MissingContract(fileName: schemaFile)
        }
        let schemas = try DiscoverySchemas(contentsOf: URL(fileURLWithPath: schemaPath))
        let reader = host.settings.reader
        let checks = parts.readiness
        let registry = host.client(for: .factorRegistry)
        let sessions = host.client(for: .sessionToken)
        let challenges = host.client(for: .challengeIssuer)
        let erasure = AccountErasure(sessions: sessions, challenges: challenges)
        let admin = AdminAccountOperations(registry: registry, erasure: erasure)
        let credentials = CredentialResolver(
            mode: host.settings.mode,
            admin: AdminAuthenticator(tokenHashesHex: host.settings.adminTokenHashes, mode: host.settings.mode),
            defaultProjectId: host.settings.defaultProjectId,
            apiKeys: CredentialResolver.parseKeys(reader.stringArray(forKey: "api.keys", isSecret: true, default: [])),
            registry: registry
        )
        let publicHost = reader.string(forKey: "public.host", default: "127.0.0.1")
        try host.settings.requireLoopbackInDevelopment(publicHost, key: "public.host")
        let port = reader.int(forKey: "public.port", default: 8080)
        let mail = OutOfBandMail(
            registry: registry, challenges: challenges,
            links: OobLinkBuilder(
                base: reader.string(forKey: "oob.linkBase", default: "http://\(publicHost):\(port)/emulator/action"),
                fallbackAPIKey: reader.string(forKey: "oob.linkApiKey", default: "fake-api-key")
            ),
            forgetsUsedCodes: host.settings.mode == .development
        )
        let emailPrivacyByDefault = host.settings.mode == .production
        let phone = PhoneChallenges(challenges: challenges, registry: registry)
        let recentLogin = try RecentLogin(reader: reader)
        let sendOobCode = SendOobCodeOperation(
            registry: registry, sessions: sessions, mail: mail, recentLogin: recentLogin, emailPrivacyByDefault: emailPrivacyByDefault
        ).handle
        let codes = OobCodeApplication(registry: registry, mail: mail, erasure: erasure)
        let accounts = AccountOperations(
            registry: registry, sessions: sessions, recentLogin: recentLogin, codes: codes, emailPrivacyByDefault: emailPrivacyByDefault
        )
        let enrollment = MfaEnrollmentOperations(
            registry: registry, sessions: sessions, challenges: challenges, phone: phone, recentLogin: recentLogin, mail: mail,
            logger: host.logger
        )
        let cachedSettings = CachedSettings(registry: registry)
        let sealKeys = TokenSealKeys(sessions: sessions)
        parts.background.append(
            PeriodicService("settings watch", every: .seconds(1), start: .immediately, logger: host.logger) {
                try await cachedSettings.follow()
            }
        )
        let mfaSignIn = MfaSignInOperations(
            registry: registry, sessions: sessions, challenges: challenges, phone: phone,
            keys: sealKeys, cachedSettings: cachedSettings
        )
        let phoneSignIn = PhoneSignInOperations(registry: registry, sessions: sessions, challenges: challenges, phone: phone)
        let projectConfig = ProjectConfigOperations(registry: registry, emailPrivacyByDefault: emailPrivacyByDefault)
        let tenants = TenantOperations(registry: registry)
        // A change made here is seen by this gateway's next request, whatever the watch's timing.
        let clearingSettings: (@escaping PublicOperationHandler) -> PublicOperationHandler = { handler in
            { request in
                defer { cachedSettings.clear() }
                return try await handler(request)
            }
        }
        let api = PublicAPI(
            router: OperationRouter(schemas: schemas),
            validator: RequestValidator(schemas: schemas),
            credentials: credentials,
            handlers: [
                "identitytoolkit.accounts.signUp": SignUpOperation(registry: registry, sessions: sessions, admin: admin).handle,
                "identitytoolkit.accounts.signInWithPassword": SignInWithPasswordOperation(
                    registry: registry, sessions: sessions, emailPrivacyByDefault: emailPrivacyByDefault
                ).handle,
                "identitytoolkit.accounts.lookup": { request in try await accounts.lookup(request, admin: admin) },
                "identitytoolkit.accounts.delete": { request in try await accounts.delete(request, admin: admin) },
                "identitytoolkit.accounts.update": { request in try await accounts.update(request, admin: admin) },
                "identitytoolkit.accounts.verifyIosClient": VerifyIosClientOperation(registry: registry, challenges: challenges).handle,
                "identitytoolkit.accounts.mfaEnrollment.start": enrollment.start,
                "identitytoolkit.accounts.mfaEnrollment.finalize": enrollment.finalize,
                "identitytoolkit.accounts.mfaEnrollment.withdraw": enrollment.withdraw,
                "identitytoolkit.accounts.mfaSignIn.start": mfaSignIn.start,
                "identitytoolkit.accounts.mfaSignIn.finalize": mfaSignIn.finalize,
                "identitytoolkit.projects.getConfig": projectConfig.get,
                "identitytoolkit.projects.updateConfig": clearingSettings(projectConfig.update),
                "identitytoolkit.projects.tenants.create": clearingSettings(tenants.create),
                "identitytoolkit.projects.tenants.get": tenants.get,
                "identitytoolkit.projects.tenants.list": tenants.list,
                "identitytoolkit.projects.tenants.patch": clearingSettings(tenants.patch),
                "identitytoolkit.projects.tenants.delete": clearingSettings(tenants.delete),
                "identitytoolkit.accounts.sendOobCode": sendOobCode,
                "identitytoolkit.accounts.sendVerificationCode": phoneSignIn.sendVerificationCode,
                "identitytoolkit.accounts.signInWithPhoneNumber": phoneSignIn.signInWithPhoneNumber,
                "identitytoolkit.accounts.resetPassword": ResetPasswordOperation(registry: registry, codes: codes).handle,
                "identitytoolkit.accounts.signInWithEmailLink": SignInWithEmailLinkOperation(
                    registry: registry, sessions: sessions, mail: mail
                ).handle,
                "identitytoolkit.accounts.signInWithCustomToken": SignInWithCustomTokenOperation(
                    registry: registry, sessions: sessions
                ).handle,
                "identitytoolkit.projects.accounts.sendOobCode": sendOobCode,
                "identitytoolkit.projects.tenants.accounts.sendOobCode": sendOobCode,
                "identitytoolkit.projects.accounts": admin.create,
                "identitytoolkit.projects.tenants.accounts": admin.create,
                "identitytoolkit.projects.accounts.lookup": admin.lookup,
                "identitytoolkit.projects.tenants.accounts.lookup": admin.lookup,
                "identitytoolkit.projects.accounts.delete": admin.delete,
                "identitytoolkit.projects.accounts.update": admin.update,
                "identitytoolkit.projects.tenants.accounts.update": admin.update,
                "identitytoolkit.projects.accounts.batchGet": admin.batchGet,
                "identitytoolkit.projects.accounts.batchDelete": admin.batchDelete,
                "identitytoolkit.projects.accounts.batchCreate": admin.batchCreate,
                "identitytoolkit.projects.tenants.accounts.batchCreate": admin.batchCreate,
                "identitytoolkit.projects.tenants.accounts.batchDelete": admin.batchDelete,
                "identitytoolkit.projects.tenants.accounts.batchGet": admin.batchGet,
                "identitytoolkit.projects.tenants.accounts.delete": admin.delete,
                "securetoken.token": SecureTokenOperation(
                    registry: registry, sessions: sessions, keys: sealKeys, cachedSettings: cachedSettings,
                    projectNumber: reader.string(forKey: "project.number", default: "12345")
                ).handle,
            ],
            status: { await status(host, checks) },
            signingKeys: SigningKeySet(client: host.client(for: .sessionToken)),
            emulator: EmulatorRoutes(
                mode: host.settings.mode, registry: registry, challenges: challenges, erasure: erasure, credentials: credentials,
                codes: codes
            ),
            metrics: PublicRequestMetrics(host.metrics),
            clientAddress: try ClientAddress(reader: reader),
            logger: host.logger
        )

        let logger = host.logger
        let publicApp = HTTPListener(
            responder: CallbackResponder<GatewayRequestContext> { request, context in
                await api.respond(to: request, context: context)
            },
            server: host.settings.listenerTimeouts.http1(),
            address: .hostname(publicHost, port: port), serverName: "gateway", logger: logger,
            onServerRunning: { channel in
                logger.info("public listener ready", metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
            }
        )
        parts.background.append(publicApp)
        // The same API over TLS, HTTP/2 (ALPN `h2`) or HTTP/1.1, when a port is configured.
        let tlsPort = reader.int(forKey: "public.tls.port", default: 0)
        if tlsPort > 0 {
            let tls = try PublicListenerTLS.serverConfiguration(
                certificateFile: reader.string(forKey: "public.tls.certificate", default: host.settings.tls.certificateFile),
                privateKeyFile: reader.string(forKey: "public.tls.privateKey", default: host.settings.tls.privateKeyFile)
            )
            let secureApp = HTTPListener(
                responder: CallbackResponder<GatewayRequestContext> { request, context in
                    await api.respond(to: request, context: context)
                },
                server: try host.settings.listenerTimeouts.http2Upgrade(tlsConfiguration: tls),
                address: .hostname(publicHost, port: tlsPort), serverName: "gateway", logger: logger,
                onServerRunning: { channel in
                    logger.info(
                        "public TLS listener ready (HTTP/2 and HTTP/1.1)",
                        metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
                }
            )
            parts.background.append(secureApp)
        }
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
