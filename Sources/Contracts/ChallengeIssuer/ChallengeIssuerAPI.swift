import JSONRPC

/// challenge-issuer's contract: `proto-json/challenge-issuer.openrpc.json`.
public enum ChallengeIssuerAPI {
    public static let service = "challenge-issuer"
    public static let allMethods: [any RPCMethod.Type] = [
        Discover.self, GetServiceStatus.self, Ping.self, ProvisionTenantSchema.self, DropTenantSchema.self,
        SendEmail.self, ListOutboxOOBCodes.self, ForgetOutboxOOBCode.self, IssuePhoneProof.self, RedeemPhoneProof.self,
        StartTOTPEnrollment.self, FinalizeTOTPEnrollment.self, VerifyTOTP.self,
        DeleteTOTPFactor.self, ListStoredTOTPFactors.self, StartPhoneVerification.self, DeliverPhoneVerification.self, VerifyPhoneCode.self,
        ListOutboxVerificationCodes.self, IssueIosReceipt.self, ForgetAccountChallenges.self, GetSMSDefenseStatus.self,
        ResumeSMSRegion.self, ListSecurityEvents.self, ImportTOTPSecrets.self, GenerateRecoveryCodes.self, RedeemRecoveryCode.self,
        CountRecoveryCodes.self, IssuePasskeyChallenge.self, RedeemPasskeyChallenge.self,
    ]
}
