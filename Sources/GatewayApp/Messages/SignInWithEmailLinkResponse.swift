/// The answer of `v1/accounts:signInWithEmailLink`: the tokens, or on the MFA branch a pending
/// credential and the factors as hints.
struct SignInWithEmailLinkResponse: SessionAnswer {
    static let schema = "GoogleCloudIdentitytoolkitV1SignInWithEmailLinkResponse"
    var kind = "identitytoolkit#EmailLinkSigninResponse"
    var localId: String
    var email: String
    var isNewUser: Bool
    var mfaPendingCredential: String?
    var mfaInfo: [MFAEnrollment]?
    var idToken: String?
    var refreshToken: String?
    var expiresIn: String?
}
