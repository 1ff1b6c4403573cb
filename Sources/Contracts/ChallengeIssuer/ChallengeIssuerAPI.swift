import JSONRPC

/// challenge-issuer's contract: `proto-json/challenge-issuer.openrpc.json`.
public enum ChallengeIssuerAPI {
    public static let service = "challenge-issuer"
    public static let allMethods: [any RPCMethod.Type] = [
        Discover.self, GetServiceStatus.self, Ping.self, ProvisionTenantSchema.self, DropTenantSchema.self,
        SendEmail.self, ListOutboxOobCodes.self, ForgetOutboxOobCode.self, IssuePhoneProof.self, RedeemPhoneProof.self,
        StartTotpEnrollment.self, FinalizeTotpEnrollment.self, VerifyTotp.self,
        DeleteTotpFactor.self, ListStoredTotpFactors.self, StartPhoneVerification.self, VerifyPhoneCode.self,
        ListOutboxVerificationCodes.self, IssueIosReceipt.self, ForgetAccountChallenges.self,
    ]
}
