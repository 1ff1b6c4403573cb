/// `v2/accounts/mfaEnrollment:withdraw`: the signed-in user removes one of their factors (contract §2.10).
struct WithdrawMFARequest: SignedInRequest {
    static let schema = "GoogleCloudIdentitytoolkitV2WithdrawMfaRequest"
    var idToken: String?
    var tenantId: String?
    var mfaEnrollmentId: String?
}
