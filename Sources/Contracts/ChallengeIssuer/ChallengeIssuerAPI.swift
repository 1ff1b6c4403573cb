import JSONRPC

/// challenge-issuer's contract: `proto-json/challenge-issuer.openrpc.json`.
public enum ChallengeIssuerAPI: DataServiceAPI {
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

// The methods only this service serves: calling one through another service's client does not compile.
extension SendEmail: ChallengeIssuerMethod {}
extension ListOutboxOOBCodes: ChallengeIssuerMethod {}
extension ForgetOutboxOOBCode: ChallengeIssuerMethod {}
extension IssuePhoneProof: ChallengeIssuerMethod {}
extension RedeemPhoneProof: ChallengeIssuerMethod {}
extension StartTOTPEnrollment: ChallengeIssuerMethod {}
extension FinalizeTOTPEnrollment: ChallengeIssuerMethod {}
extension VerifyTOTP: ChallengeIssuerMethod {}
extension DeleteTOTPFactor: ChallengeIssuerMethod {}
extension ListStoredTOTPFactors: ChallengeIssuerMethod {}
extension StartPhoneVerification: ChallengeIssuerMethod {}
extension DeliverPhoneVerification: ChallengeIssuerMethod {}
extension VerifyPhoneCode: ChallengeIssuerMethod {}
extension ListOutboxVerificationCodes: ChallengeIssuerMethod {}
extension IssueIosReceipt: ChallengeIssuerMethod {}
extension ForgetAccountChallenges: ChallengeIssuerMethod {}
extension GetSMSDefenseStatus: ChallengeIssuerMethod {}
extension ResumeSMSRegion: ChallengeIssuerMethod {}
extension ImportTOTPSecrets: ChallengeIssuerMethod {}
extension GenerateRecoveryCodes: ChallengeIssuerMethod {}
extension RedeemRecoveryCode: ChallengeIssuerMethod {}
extension CountRecoveryCodes: ChallengeIssuerMethod {}
extension IssuePasskeyChallenge: ChallengeIssuerMethod {}
extension RedeemPasskeyChallenge: ChallengeIssuerMethod {}
