import JSONRPC

/// session-token's contract: `proto-json/session-token.openrpc.json`.
public enum SessionTokenAPI: DataServiceAPI {
    public static let service = "session-token"
    public static let allMethods: [any RPCMethod.Type] = [
        Discover.self, GetServiceStatus.self, Ping.self, ProvisionTenantSchema.self, DropTenantSchema.self,
        PublishSigningKeys.self, IssueSession.self, InspectRefreshToken.self, RefreshSession.self,
        VerifyIDToken.self, VerifyCustomToken.self, IssuePendingCredential.self, PublishTokenSealKey.self, InspectPendingCredential.self,
        RevokeFactorSessions.self, ForgetAccountSessions.self, ListSecurityEvents.self, IssueSessionCookie.self,
        SignBlockingEvent.self, RecordBlockingEvent.self,
    ]
}

// The methods only this service serves: calling one through another service's client does not compile.
extension PublishSigningKeys: SessionTokenMethod {}
extension IssueSession: SessionTokenMethod {}
extension InspectRefreshToken: SessionTokenMethod {}
extension RefreshSession: SessionTokenMethod {}
extension VerifyIDToken: SessionTokenMethod {}
extension VerifyCustomToken: SessionTokenMethod {}
extension IssuePendingCredential: SessionTokenMethod {}
extension PublishTokenSealKey: SessionTokenMethod {}
extension InspectPendingCredential: SessionTokenMethod {}
extension RevokeFactorSessions: SessionTokenMethod {}
extension ForgetAccountSessions: SessionTokenMethod {}
extension IssueSessionCookie: SessionTokenMethod {}
extension SignBlockingEvent: SessionTokenMethod {}
extension RecordBlockingEvent: SessionTokenMethod {}
