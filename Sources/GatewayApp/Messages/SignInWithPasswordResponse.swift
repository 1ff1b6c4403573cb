/// The answer of `v1/accounts:signInWithPassword`: the tokens, or on the MFA branch a pending
/// credential and the factors as hints, and no tokens (contract §2.2).
struct SignInWithPasswordResponse: SessionAnswer {
    static let schema = "GoogleCloudIdentitytoolkitV1SignInWithPasswordResponse"
    var kind = "identitytoolkit#VerifyPasswordResponse"
    var registered = true
    var localId: String
    var email: String
    var displayName: String?
    var mfaPendingCredential: String?
    var mfaInfo: [MFAEnrollment]?
    var idToken: String?
    var refreshToken: String?
    var expiresIn: String?
}
