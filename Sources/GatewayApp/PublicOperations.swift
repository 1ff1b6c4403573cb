import Contracts
import IdentityToolkit
import JSONRPC
import PluginHTTP
import ServiceKit

/// Every public operation the gateway serves, by its discovery-document id, and the parts they
/// share: the three peers' clients, the settings cache and its watch, the token seal keys.
struct PublicOperations: Sendable {
    let handlers: [String: PublicOperationHandler]
    /// Follows factor-registry's settings changes, so the cache may be used.
    let settingsWatch: PeriodicService
    let emulator: EmulatorRoutes
    /// The audit trail's reader, also behind the JSON-lines export.
    let securityEvents: SecurityEventOperations

    init(_ host: ServiceHost, settings: GatewaySettings, credentials: CredentialResolver, cachedSettings: CachedSettings) throws {
        let registry = host.peer(FactorRegistryAPI.self)
        let sessions = host.peer(SessionTokenAPI.self)
        let challenges = host.peer(ChallengeIssuerAPI.self)
        let erasure = AccountErasure(sessions: sessions, challenges: challenges)
        let admin = AdminAccountOperations(registry: registry, erasure: erasure)
        let mail = OutOfBandMail(
            registry: registry, challenges: challenges,
            links: OOBLinkBuilder(base: settings.oobLinkBase, fallbackAPIKey: settings.oobLinkAPIKey), settings: cachedSettings,
            forgetsUsedCodes: host.settings.mode == .development
        )
        let privacy = settings.emailPrivacyByDefault
        let functions = BlockingFunctions(
            registry: registry, settings: cachedSettings,
            caller: BlockingFunctionCaller(
                sessions: sessions,
                call: OutsideCall(
                    client: try host.outside.client(extraTrustRootsFile: settings.blockingFunctionTrustRoots),
                    timeout: BlockingFunctionCaller.deadline
                ),
                addresses: FunctionAddressPolicy(allowsPrivateAddresses: settings.blockingFunctionsAllowPrivateAddresses),
                requiresHTTPS: settings.modeDefaults.blockingFunctionsNeedHTTPS, registry: host.metrics.registry, logger: host.logger
            )
        )
        let phone = PhoneChallenges(challenges: challenges, registry: registry, scopeSettings: cachedSettings, functions: functions)
        let codes = OOBCodeApplication(registry: registry, mail: mail, erasure: erasure)
        let sealKeys = TokenSealKeys(sessions: sessions)
        settingsWatch = PeriodicService("settings watch", every: .seconds(1), start: .immediately, logger: host.logger) {
            try await cachedSettings.follow()
        }
        emulator = EmulatorRoutes(
            mode: host.settings.mode, registry: registry, challenges: challenges, erasure: erasure, credentials: credentials,
            codes: codes, scopeSettings: cachedSettings
        )

        let accounts = AccountOperations(
            registry: registry, scopeSettings: cachedSettings, sessions: sessions, recentLogin: settings.recentLogin, codes: codes,
            emailPrivacyByDefault: privacy
        )
        let passkeys = PasskeyOperations(
            registry: registry, sessions: sessions, challenges: challenges, scopeSettings: cachedSettings,
            recentLogin: settings.recentLogin, functions: functions, maximumPerAccount: settings.maximumPasskeysPerAccount,
            notice: NewFactorNotice(mail: mail, logger: host.logger), logger: host.logger
        )
        let passkeyConfig = PasskeyConfigOperations(registry: registry)
        let mfaSignIn = MFASignInOperations(
            registry: registry, sessions: sessions, challenges: challenges, phone: phone, keys: sealKeys,
            cachedSettings: cachedSettings, recoveryNotice: RecoveryCodeNotice(mail: mail, logger: host.logger)
        )
        let enrollment = MFAEnrollmentOperations(
            registry: registry, scopeSettings: cachedSettings, sessions: sessions, challenges: challenges, kinds: mfaSignIn.kinds,
            recentLogin: settings.recentLogin, mail: mail, logger: host.logger
        )
        let linking = AccountLinking(recentLogin: settings.recentLogin)
        let phoneSignIn = PhoneSignInOperations(
            registry: registry, scopeSettings: cachedSettings, sessions: sessions, challenges: challenges, phone: phone, linking: linking,
            mail: mail,
            enabledByDefault: settings.modeDefaults.phoneSignIn, logger: host.logger, functions: functions
        )
        let projectConfig = ProjectConfigOperations(registry: registry, defaults: settings.modeDefaults)
        let tenants = TenantOperations(registry: registry, defaults: settings.modeDefaults)
        let smsDefense = SMSDefenseOperations(challenges: challenges, settings: cachedSettings)
        let securityEvents = SecurityEventOperations(peers: [registry.rpc, challenges.rpc, sessions.rpc], settings: cachedSettings)
        let providerConfigs = IdentityProviderConfigOperations(registry: registry, settings: cachedSettings)
        let sessionCookie = SessionCookieOperation(registry: registry, scopeSettings: cachedSettings, sessions: sessions).handle
        let accountQuery = AccountQueryOperation(registry: registry).handle
        let clientConfig = ClientConfigOperations(
            registry: registry, scopeSettings: cachedSettings, projectNumber: settings.projectNumber,
            recaptchaSiteKey: settings.recaptchaSiteKey
        )
        self.securityEvents = securityEvents
        let recoveryCodes = RecoveryCodeOperations(
            registry: registry, sessions: sessions, challenges: challenges, cachedSettings: cachedSettings
        )
        let factorWithdrawal = AdminFactorWithdrawal(registry: registry, erasure: erasure, settings: cachedSettings)
        let sendOobCode = SendOOBCodeOperation(
            registry: registry, scopeSettings: cachedSettings, sessions: sessions, mail: mail, recentLogin: settings.recentLogin,
            emailPrivacyByDefault: privacy,
            functions: functions
        ).handle
        // A change made here is seen by this gateway's next request, whatever the watch's timing.
        let clearingSettings: (@escaping PublicOperationHandler) -> PublicOperationHandler = { handler in
            { request in
                defer { cachedSettings.clear() }
                return try await handler(request)
            }
        }

        let client: [String: PublicOperationHandler] = [
            "identitytoolkit.accounts.signUp": SignUpOperation(
                registry: registry, scopeSettings: cachedSettings, sessions: sessions, admin: admin, linking: linking, functions: functions
            ).handle,
            "identitytoolkit.accounts.signInWithPassword": SignInWithPasswordOperation(
                registry: registry, scopeSettings: cachedSettings, sessions: sessions, functions: functions, emailPrivacyByDefault: privacy
            ).handle,
            "identitytoolkit.accounts.lookup": { request in try await accounts.lookup(request, admin: admin) },
            "identitytoolkit.accounts.delete": { request in try await accounts.delete(request, admin: admin) },
            "identitytoolkit.accounts.update": { request in try await accounts.update(request, admin: admin) },
            "identitytoolkit.accounts.verifyIosClient": VerifyIosClientOperation(
                registry: registry, scopeSettings: cachedSettings, challenges: challenges
            ).handle,
            "identitytoolkit.accounts.mfaEnrollment.start": enrollment.start,
            "identitytoolkit.accounts.mfaEnrollment.finalize": enrollment.finalize,
            "identitytoolkit.accounts.mfaEnrollment.withdraw": enrollment.withdraw,
            "identitytoolkit.accounts.mfaSignIn.start": mfaSignIn.start,
            "identitytoolkit.accounts.mfaSignIn.finalize": mfaSignIn.finalize,
            "identitytoolkit.accounts.passkeyEnrollment.start": passkeys.startEnrollment,
            "identitytoolkit.accounts.passkeyEnrollment.finalize": passkeys.finalizeEnrollment,
            "identitytoolkit.accounts.passkeySignIn.start": passkeys.startSignIn,
            "identitytoolkit.accounts.passkeySignIn.finalize": passkeys.finalizeSignIn,
            "identitytoolkit.accounts.sendOobCode": sendOobCode,
            "identitytoolkit.accounts.sendVerificationCode": phoneSignIn.sendVerificationCode,
            "identitytoolkit.accounts.signInWithPhoneNumber": phoneSignIn.signInWithPhoneNumber,
            "identitytoolkit.accounts.resetPassword": ResetPasswordOperation(
                registry: registry, scopeSettings: cachedSettings, codes: codes
            ).handle,
            "identitytoolkit.accounts.signInWithEmailLink": SignInWithEmailLinkOperation(
                registry: registry, scopeSettings: cachedSettings, sessions: sessions, mail: mail, linking: linking, functions: functions
            ).handle,
            "identitytoolkit.accounts.signInWithCustomToken": SignInWithCustomTokenOperation(
                registry: registry, scopeSettings: cachedSettings, sessions: sessions
            )
            .handle,
            "identitytoolkit.accounts.signInWithIdp": SignInWithIdpOperation(
                registry: registry, scopeSettings: cachedSettings, sessions: sessions, linking: linking, functions: functions
            ).handle,
            "identitytoolkit.accounts.createAuthUri": CreateAuthUriOperation(
                registry: registry, scopeSettings: cachedSettings, emailPrivacyByDefault: privacy
            ).handle,
            "identitytoolkit.getProjects": clientConfig.project,
            "identitytoolkit.getRecaptchaParams": clientConfig.recaptchaParams,
            "identitytoolkit.getRecaptchaConfig": clientConfig.recaptchaConfig,
            "identitytoolkit.getPasswordPolicy": clientConfig.passwordPolicy,
            "identitytoolkit.accounts.revokeToken": RevokeTokenOperation(
                registry: registry, scopeSettings: cachedSettings, sessions: sessions
            ).handle,
            "securetoken.token": SecureTokenOperation(
                registry: registry, sessions: sessions, keys: sealKeys, cachedSettings: cachedSettings,
                projectNumber: settings.projectNumber
            ).handle,
        ]
        // The admin forms: a project's, and a tenant's under it.
        let administration: [String: PublicOperationHandler] = [
            "identitytoolkit.projects.getConfig": projectConfig.get,
            "identitytoolkit.projects.updateConfig": clearingSettings(projectConfig.update),
            "identitytoolkit.projects.tenants.create": clearingSettings(tenants.create),
            "identitytoolkit.projects.tenants.get": tenants.get,
            "identitytoolkit.projects.tenants.list": tenants.list,
            "identitytoolkit.projects.tenants.patch": clearingSettings(tenants.patch),
            "identitytoolkit.projects.tenants.delete": clearingSettings(tenants.delete),
            "identitytoolkit.projects.getPasskeyConfig": passkeyConfig.get,
            "identitytoolkit.projects.tenants.getPasskeyConfig": passkeyConfig.get,
            "identitytoolkit.projects.updatePasskeyConfig": clearingSettings(passkeyConfig.patch),
            "identitytoolkit.projects.tenants.updatePasskeyConfig": clearingSettings(passkeyConfig.patch),
            "identitytoolkit.projects.accounts.sendOobCode": sendOobCode,
            "identitytoolkit.projects.tenants.accounts.sendOobCode": sendOobCode,
            "identitytoolkit.projects.accounts": admin.create,
            "identitytoolkit.projects.tenants.accounts": admin.create,
            "identitytoolkit.projects.accounts.lookup": admin.lookup,
            "identitytoolkit.projects.tenants.accounts.lookup": admin.lookup,
            "identitytoolkit.projects.accounts.delete": admin.delete,
            "identitytoolkit.projects.tenants.accounts.delete": admin.delete,
            "identitytoolkit.projects.accounts.update": admin.update,
            "identitytoolkit.projects.tenants.accounts.update": admin.update,
            "identitytoolkit.projects.accounts.batchGet": admin.batchGet,
            "identitytoolkit.projects.tenants.accounts.batchGet": admin.batchGet,
            "identitytoolkit.projects.accounts.batchDelete": admin.batchDelete,
            "identitytoolkit.projects.tenants.accounts.batchDelete": admin.batchDelete,
            "identitytoolkit.projects.accounts.batchCreate": admin.batchCreate,
            "identitytoolkit.projects.tenants.accounts.batchCreate": admin.batchCreate,
            "identitytoolkit.defaultSupportedIdps.list": providerConfigs.listSupported,
            "identitytoolkit.projects.createSessionCookie": sessionCookie,
            "identitytoolkit.projects.accounts.query": accountQuery,
            "identitytoolkit.projects.tenants.accounts.query": accountQuery,
            "identitytoolkit.projects.queryAccounts": accountQuery,
            "identitytoolkit.projects.tenants.createSessionCookie": sessionCookie,
            // This server's own (identitytoolkit/extensions.json).
            "mfa.projects.smsDefense.get": smsDefense.get,
            "mfa.projects.tenants.smsDefense.get": smsDefense.get,
            "mfa.projects.smsDefense.resume": smsDefense.resume,
            "mfa.projects.tenants.smsDefense.resume": smsDefense.resume,
            "mfa.projects.securityEvents.list": securityEvents.list,
            "mfa.projects.tenants.securityEvents.list": securityEvents.list,
            "mfa.projects.accounts.withdrawMfaEnrollment": factorWithdrawal.withdraw,
            "mfa.accounts.mfaRecoveryCodes.generate": recoveryCodes.generate,
            "mfa.accounts.mfaRecoveryCodes.lookup": recoveryCodes.lookup,
            "mfa.projects.accounts.mfaRecoveryCodes.lookup": recoveryCodes.lookup,
            "mfa.projects.tenants.accounts.mfaRecoveryCodes.lookup": recoveryCodes.lookup,
            "mfa.projects.tenants.accounts.withdrawMfaEnrollment": factorWithdrawal.withdraw,
        ]
        var providers: [String: PublicOperationHandler] = [:]
        for (prefix, collection) in [
            ("oauthIdpConfigs", IdentityProviderConfigOperations.Collection.oauth), ("defaultSupportedIdpConfigs", .defaultSupported),
        ] {
            for scope in ["identitytoolkit.projects", "identitytoolkit.projects.tenants"] {
                providers["\(scope).\(prefix).create"] = providerConfigs.create(collection)
                providers["\(scope).\(prefix).get"] = providerConfigs.get(collection)
                providers["\(scope).\(prefix).list"] = providerConfigs.list(collection)
                providers["\(scope).\(prefix).patch"] = providerConfigs.patch(collection)
                providers["\(scope).\(prefix).delete"] = providerConfigs.delete(collection)
            }
        }
        handlers = client.merging(administration) { first, _ in first }.merging(providers) { first, _ in first }
    }
}
