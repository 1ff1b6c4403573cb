import JSONRPC

/// factor-registry's contract: `proto-json/factor-registry.openrpc.json`.
public enum FactorRegistryAPI: DataServiceAPI {
    public static let service = "factor-registry"
    /// Every method the service serves; a test checks this list against the OpenRPC document.
    public static let allMethods: [any RPCMethod.Type] = [
        Discover.self, GetServiceStatus.self, Ping.self,
        CreateTenant.self, GetTenant.self, ListTenants.self, DeleteTenant.self, SignUpAccount.self,
        VerifyPassword.self, GetAccount.self, DeleteAccount.self, CreateAccount.self, FindAccounts.self,
        UpdateAccount.self, RecordSignIn.self, CheckFactor.self, ListAccounts.self, ExportPasswordHashes.self, DeleteAccounts.self,
        DeleteAllAccounts.self,
        CreateOOBCode.self,
        ApplyOOBCode.self, InspectOOBCode.self, SignInWithEmailLink.self, SignInWithPhone.self, ImportAccounts.self, GetProjectConfig.self,
        UpdateProjectConfig.self, UpdateTenant.self,
        ResolveSettings.self, WatchSettings.self, AddEnrollment.self, RemoveEnrollment.self, ReplaceEnrollments.self, ResolveAPIKey.self,
        ListSecurityEvents.self, PutIdentityProviderConfig.self, GetIdentityProviderConfig.self, ListIdentityProviderConfigs.self,
        DeleteIdentityProviderConfig.self, SignInWithIdp.self, CreateAuthorizationUri.self, QueryAccounts.self,
        RevokeProviderToken.self, AddPasskey.self, FindPasskey.self, RecordPasskeyUse.self, RemovePasskeys.self, ListPasskeys.self,
    ]
}

/// factor-registry's application error codes (range 1000-1099, `proto-json/errors.json`).
extension RPCErrorCode {
    public static let tenantNotFound = RPCErrorCode(1000)
    public static let projectNotFound = RPCErrorCode(1001)
    public static let invalidTenantRequest = RPCErrorCode(1002)
    public static let tenantProvisioningFailed = RPCErrorCode(1003)
    /// An account request the Identity Toolkit answers with a business error (`EMAIL_EXISTS`, …).
    public static let accountRejected = RPCErrorCode(1010)
}

// The methods only this service serves: calling one through another service's client does not compile.
extension CreateTenant: FactorRegistryMethod {}
extension GetTenant: FactorRegistryMethod {}
extension ListTenants: FactorRegistryMethod {}
extension DeleteTenant: FactorRegistryMethod {}
extension SignUpAccount: FactorRegistryMethod {}
extension VerifyPassword: FactorRegistryMethod {}
extension GetAccount: FactorRegistryMethod {}
extension DeleteAccount: FactorRegistryMethod {}
extension CreateAccount: FactorRegistryMethod {}
extension FindAccounts: FactorRegistryMethod {}
extension UpdateAccount: FactorRegistryMethod {}
extension RecordSignIn: FactorRegistryMethod {}
extension CheckFactor: FactorRegistryMethod {}
extension ListAccounts: FactorRegistryMethod {}
extension ExportPasswordHashes: FactorRegistryMethod {}
extension DeleteAccounts: FactorRegistryMethod {}
extension DeleteAllAccounts: FactorRegistryMethod {}
extension CreateOOBCode: FactorRegistryMethod {}
extension ApplyOOBCode: FactorRegistryMethod {}
extension InspectOOBCode: FactorRegistryMethod {}
extension SignInWithEmailLink: FactorRegistryMethod {}
extension SignInWithPhone: FactorRegistryMethod {}
extension ImportAccounts: FactorRegistryMethod {}
extension GetProjectConfig: FactorRegistryMethod {}
extension UpdateProjectConfig: FactorRegistryMethod {}
extension UpdateTenant: FactorRegistryMethod {}
extension ResolveSettings: FactorRegistryMethod {}
extension WatchSettings: FactorRegistryMethod {}
extension AddEnrollment: FactorRegistryMethod {}
extension RemoveEnrollment: FactorRegistryMethod {}
extension ReplaceEnrollments: FactorRegistryMethod {}
extension ResolveAPIKey: FactorRegistryMethod {}
extension PutIdentityProviderConfig: FactorRegistryMethod {}
extension GetIdentityProviderConfig: FactorRegistryMethod {}
extension ListIdentityProviderConfigs: FactorRegistryMethod {}
extension DeleteIdentityProviderConfig: FactorRegistryMethod {}
extension SignInWithIdp: FactorRegistryMethod {}
extension CreateAuthorizationUri: FactorRegistryMethod {}
extension QueryAccounts: FactorRegistryMethod {}
extension RevokeProviderToken: FactorRegistryMethod {}
extension AddPasskey: FactorRegistryMethod {}
extension FindPasskey: FactorRegistryMethod {}
extension RecordPasskeyUse: FactorRegistryMethod {}
extension RemovePasskeys: FactorRegistryMethod {}
extension ListPasskeys: FactorRegistryMethod {}
