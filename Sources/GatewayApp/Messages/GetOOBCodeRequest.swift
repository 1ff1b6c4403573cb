/// `v1/accounts:sendOobCode` (contract §2.14): a verification, reset, email-change or sign-in link,
/// mailed or (admin, `returnOobLink`) returned.
struct GetOOBCodeRequest: SignedInRequest {
    static let schema = "GoogleCloudIdentitytoolkitV1GetOobCodeRequest"
    var requestType: String?
    var idToken: String?
    var tenantId: String?
    var targetProjectId: String?
    var email: String?
    var newEmail: String?
    var continueUrl: String?
    var returnOobLink: Bool?
}
