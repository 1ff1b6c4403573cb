/// `v2/accounts/mfaSignIn:start`: an SMS code for the phone factor `mfaEnrollmentId` names (contract §2.11).
struct StartMFASignInRequest: TenantNamingRequest {
    static let schema = "GoogleCloudIdentitytoolkitV2StartMfaSignInRequest"
    var mfaPendingCredential: String?
    var mfaEnrollmentId: String?
    var tenantId: String?
    var phoneSignInInfo: StartMFAPhoneRequestInfo?
}
