/// The answer of `v1/accounts:signInWithIdp`: the provider's user (always), and the tokens; or the
/// MFA branch (a pending credential, the factors as hints); or `needConfirmation`; or, when the
/// request asked for its credential back, `errorMessage` (contract §2.2, discovery document).
struct SignInWithIdpResponse: SessionAnswer {
    static let schema = "GoogleCloudIdentitytoolkitV1SignInWithIdpResponse"
    var kind = "identitytoolkit#VerifyAssertionResponse"
    var providerId: String
    var federatedId: String
    var localId: String?
    var email: String?
    var emailVerified: Bool?
    var displayName: String?
    var fullName: String?
    var firstName: String?
    var lastName: String?
    var photoUrl: String?
    var rawUserInfo: String?
    var oauthIdToken: String?
    var oauthAccessToken: String?
    var oauthExpireIn: Int?
    var isNewUser: Bool?
    var needConfirmation: Bool?
    var verifiedProvider: [String]?
    var errorMessage: String?
    var pendingToken: String?
    var tenantId: String?
    var context: String?
    var mfaPendingCredential: String?
    var mfaInfo: [MFAEnrollment]?
    var idToken: String?
    var refreshToken: String?
    var expiresIn: String?
}
