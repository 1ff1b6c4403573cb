/// `v1/accounts:signInWithEmailLink`: a mailed sign-in code for the address, optionally linked to
/// the signed-in user.
struct SignInWithEmailLinkRequest: SignedInRequest {
    static let schema = "GoogleCloudIdentitytoolkitV1SignInWithEmailLinkRequest"
    var tenantId: String?
    var email: String?
    var oobCode: String?
    var idToken: String?
}
