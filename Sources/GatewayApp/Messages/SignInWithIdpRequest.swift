/// `v1/accounts:signInWithIdp`: a provider's credential (`postBody`, or the authorization response
/// at `requestUri` with `sessionId`, or a `pendingToken`), and `idToken` to link it to a signed-in user.
struct SignInWithIdpRequest: SignedInRequest {
    static let schema = "GoogleCloudIdentitytoolkitV1SignInWithIdpRequest"
    var tenantId: String?
    var idToken: String?
    var requestUri: String?
    var postBody: String?
    var sessionId: String?
    var pendingToken: String?
    var returnIdpCredential: Bool?
    var returnRefreshToken: Bool?
    var pendingIdToken: String?
}
