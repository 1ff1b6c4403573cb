import Contracts
import IdentityToolkit
import JSONRPC
import ServiceKit
import ServiceTransport

/// factor-registry's RPC methods, by domain: each registers its methods with the component that
/// serves them. Every method is the gateway's alone.
enum FactorRegistryMethods {
    static let gatewayOnly = RPCCallerPolicy.only([ServiceName.gateway.rawValue])

    /// Projects, tenants and their settings; API keys.
    static func registerTenants(
        _ methods: inout RPCMethodTable, registry: TenantRegistry, projects: TenantRepository, settingsCache: SettingsCache
    ) {
        methods.register(CreateTenant.self, callers: gatewayOnly) { params, _ in try await registry.create(params) }
        methods.register(GetTenant.self, callers: gatewayOnly) { params, _ in try await registry.get(params) }
        methods.register(ListTenants.self, callers: gatewayOnly) { params, _ in try await registry.list(params) }
        methods.register(UpdateTenant.self, callers: gatewayOnly) { params, _ in try await registry.update(params) }
        methods.register(DeleteTenant.self, callers: gatewayOnly) { params, _ in
            try await registry.delete(params)
            return RPCEmpty()
        }
        methods.register(GetProjectConfig.self, callers: gatewayOnly) { params, _ in try await registry.projectConfig(params.projectId) }
        methods.register(UpdateProjectConfig.self, callers: gatewayOnly) { params, _ in try await registry.updateProjectConfig(params) }
        methods.register(ResolveSettings.self, callers: gatewayOnly) { params, _ in try await registry.resolve(params) }
        methods.register(WatchSettings.self, callers: gatewayOnly) { params, _ in
            // Below the callers' RPC timeout (10 s by default), so a quiet watch ends as an answer.
            let wait = Duration.milliseconds(min(max(params.waitMilliseconds, 0), 8_000))
            let now = await settingsCache.change(after: params.generation, within: wait)
            return .init(generation: now.generation, listening: now.listening)
        }
        methods.register(ResolveAPIKey.self, callers: gatewayOnly) { params, _ in
            guard params.apiKey.utf8.count <= 128, let projectId = try await projects.project(forAPIKey: params.apiKey) else {
                throw RPCError(code: .unknownAPIKey, message: "Unknown API key")
            }
            return .init(projectId: projectId)
        }
    }

    /// Passkeys: the credentials the gateway verified (issue 59).
    static func registerPasskeys(_ methods: inout RPCMethodTable, passkeys: PasskeyService) {
        methods.register(AddPasskey.self, callers: gatewayOnly) { params, _ in try await passkeys.add(params) }
        methods.register(FindPasskey.self, callers: gatewayOnly) { params, _ in try await passkeys.find(params) }
        methods.register(RecordPasskeyUse.self, callers: gatewayOnly) { params, _ in try await passkeys.recordUse(params) }
        methods.register(RemovePasskeys.self, callers: gatewayOnly) { params, _ in try await passkeys.remove(params) }
        methods.register(ListPasskeys.self, callers: gatewayOnly) { params, _ in try await passkeys.list(params) }
    }

    /// Accounts: sign-up, password and phone sign-in, reads, updates, deletion, import.
    static func registerAccounts(
        _ methods: inout RPCMethodTable, accounts: AccountService, importer: AccountImporter, export: PasswordExport
    ) {
        methods.register(ExportPasswordHashes.self, callers: gatewayOnly) { params, _ in try await export.run(params) }
        methods.register(SignUpAccount.self, callers: gatewayOnly) { params, _ in try await accounts.signUp(params) }
        methods.register(GetAccount.self, callers: gatewayOnly) { params, _ in try await accounts.get(params) }
        methods.register(CreateAccount.self, callers: gatewayOnly) { params, _ in try await accounts.create(params) }
        methods.register(FindAccounts.self, callers: gatewayOnly) { params, _ in try await accounts.find(params) }
        methods.register(UpdateAccount.self, callers: gatewayOnly) { params, _ in try await accounts.update(params) }
        methods.register(RecordSignIn.self, callers: gatewayOnly) { params, _ in try await accounts.recordSignIn(params) }
        methods.register(CheckFactor.self, callers: gatewayOnly) { params, _ in try await accounts.checkFactor(params) }
        methods.register(ListAccounts.self, callers: gatewayOnly) { params, _ in try await accounts.list(params) }
        methods.register(QueryAccounts.self, callers: gatewayOnly) { params, _ in try await AccountQuery(accounts: accounts).run(params) }
        methods.register(DeleteAccounts.self, callers: gatewayOnly) { params, _ in try await accounts.deleteMany(params) }
        methods.register(DeleteAccount.self, callers: gatewayOnly) { params, _ in
            try await accounts.delete(params)
            return RPCEmpty()
        }
        methods.register(DeleteAllAccounts.self, callers: gatewayOnly) { params, _ in
            try await accounts.deleteAll(params)
            return RPCEmpty()
        }
        methods.register(VerifyPassword.self, callers: gatewayOnly) { params, _ in try await accounts.verifyPassword(params) }
        methods.register(SignInWithPhone.self, callers: gatewayOnly) { params, _ in try await accounts.signInWithPhone(params) }
        methods.register(ImportAccounts.self, callers: gatewayOnly) { params, _ in try await importer.run(params) }
    }

    /// Second-factor enrollment metadata.
    static func registerEnrollments(_ methods: inout RPCMethodTable, enrollments: EnrollmentService) {
        methods.register(AddEnrollment.self, callers: gatewayOnly) { params, _ in try await enrollments.add(params) }
        methods.register(RemoveEnrollment.self, callers: gatewayOnly) { params, _ in try await enrollments.remove(params) }
        methods.register(ReplaceEnrollments.self, callers: gatewayOnly) { params, _ in try await enrollments.replace(params) }
    }

    /// Out-of-band codes: made, read, used, and the email-link sign-in.
    static func registerOobCodes(_ methods: inout RPCMethodTable, codes: OOBCodeService) {
        methods.register(CreateOOBCode.self, callers: gatewayOnly) { params, _ in try await codes.create(params) }
        methods.register(InspectOOBCode.self, callers: gatewayOnly) { params, _ in try await codes.inspect(params) }
        methods.register(ApplyOOBCode.self, callers: gatewayOnly) { params, _ in try await codes.apply(params) }
        methods.register(SignInWithEmailLink.self, callers: gatewayOnly) { params, _ in try await codes.signInWithEmailLink(params) }
    }

    /// Identity providers: their configurations, the web flow's start, and sign-in.
    static func registerIdentityProviders(_ methods: inout RPCMethodTable, configs: IdentityProviderConfigService, signIn: FederatedSignIn)
    {
        methods.register(PutIdentityProviderConfig.self, callers: gatewayOnly) { params, _ in try await configs.put(params) }
        methods.register(GetIdentityProviderConfig.self, callers: gatewayOnly) { params, _ in try await configs.get(params) }
        methods.register(ListIdentityProviderConfigs.self, callers: gatewayOnly) { params, _ in try await configs.list(params) }
        methods.register(DeleteIdentityProviderConfig.self, callers: gatewayOnly) { params, _ in try await configs.delete(params) }
        methods.register(CreateAuthorizationUri.self, callers: gatewayOnly) { params, _ in
            try await rejecting { try await signIn.authorizationUri(params) }
        }
        methods.register(SignInWithIdp.self, callers: gatewayOnly) { params, _ in try await rejecting { try await signIn.signIn(params) } }
        methods.register(RevokeProviderToken.self, callers: gatewayOnly) { params, _ in
            try await rejecting { try await signIn.revoke(params) }
        }
    }

    /// A business error of the flow, as the RPC error that carries it to the gateway.
    static func rejecting<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as IdentityToolkitError {
            throw AccountService.rejected(error)
        }
    }
}
