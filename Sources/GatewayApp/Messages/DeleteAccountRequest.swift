/// `v1/accounts:delete` (contract §2.6): the signed-in user's account, or (admin) the one `localId` names.
struct DeleteAccountRequest: SignedInRequest {
    static let schema = "GoogleCloudIdentitytoolkitV1DeleteAccountRequest"
    var idToken: String?
    var tenantId: String?
    var targetProjectId: String?
    var localId: String?
}
