/// The answer of `v1/accounts:signInWithCustomToken`.
struct SignInWithCustomTokenResponse: SessionAnswer {
    static let schema = "GoogleCloudIdentitytoolkitV1SignInWithCustomTokenResponse"
    var kind = "identitytoolkit#VerifyCustomTokenResponse"
    var isNewUser: Bool
    var idToken: String?
    var refreshToken: String?
    var expiresIn: String?
}
