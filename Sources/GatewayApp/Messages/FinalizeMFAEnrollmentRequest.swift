/// `v2/accounts/mfaEnrollment:finalize`: the proof of the factor being enrolled (contract §2.9).
struct FinalizeMFAEnrollmentRequest: SignedInRequest {
    static let schema = "GoogleCloudIdentitytoolkitV2FinalizeMfaEnrollmentRequest"
    var idToken: String?
    var tenantId: String?
    var displayName: String?
    var phoneVerificationInfo: FinalizeMFAPhoneRequestInfo?
    var totpVerificationInfo: FinalizeMFATOTPEnrollmentRequestInfo?
}
