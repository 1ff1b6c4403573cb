/// `v1/accounts:lookup` (contract §2.3): the signed-in user's account, or (admin) accounts by id,
/// email or number.
struct GetAccountInfoRequest: SignedInRequest {
    static let schema = "GoogleCloudIdentitytoolkitV1GetAccountInfoRequest"
    var idToken: String?
    var tenantId: String?
    var targetProjectId: String?
    var localId: [String]?
    var email: [String]?
    var phoneNumber: [String]?
}
