/// `v2/accounts/mfaSignIn:finalize`: the second factor's proof that finishes a pending sign-in
/// (contract §2.12). The kind is the one whose member is present.
struct FinalizeMFASignInRequest: TenantNamingRequest {
    static let schema = "GoogleCloudIdentitytoolkitV2FinalizeMfaSignInRequest"
    var mfaPendingCredential: String?
    var mfaEnrollmentId: String?
    var tenantId: String?
    var phoneVerificationInfo: FinalizeMFAPhoneRequestInfo?
    var totpVerificationInfo: MFATOTPSignInRequestInfo?
}
