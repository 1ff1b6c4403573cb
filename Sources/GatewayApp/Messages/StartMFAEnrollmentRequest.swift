/// `v2/accounts/mfaEnrollment:start`: the kind is the one whose member is present (contract §2.8).
struct StartMFAEnrollmentRequest: SignedInRequest {
    static let schema = "GoogleCloudIdentitytoolkitV2StartMfaEnrollmentRequest"
    var idToken: String?
    var tenantId: String?
    var phoneEnrollmentInfo: StartMFAPhoneRequestInfo?
    var totpEnrollmentInfo: StartMFATOTPEnrollmentRequestInfo?
}
