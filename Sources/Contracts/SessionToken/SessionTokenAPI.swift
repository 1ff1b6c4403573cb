import JSONRPC

/// session-token's contract: `proto-json/session-token.openrpc.json`.
public enum SessionTokenAPI {
    public static let service = "session-token"
    public static let allMethods: [any RPCMethod.Type] = [
        Discover.self, GetServiceStatus.self, Ping.self, ProvisionTenantSchema.self, DropTenantSchema.self,
        PublishSigningKeys.self, IssueSession.self, InspectRefreshToken.self, RefreshSession.self,
        VerifyIDToken.self, VerifyCustomToken.self, IssuePendingCredential.self, PublishTokenSealKey.self, InspectPendingCredential.self,
        RevokeFactorSessions.self, ForgetAccountSessions.self, ListSecurityEvents.self, IssueSessionCookie.self,
        SignBlockingEvent.self, RecordBlockingEvent.self,
    ]
}
