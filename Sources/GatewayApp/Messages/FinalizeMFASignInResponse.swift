/// The answer of `v2/accounts/mfaSignIn:finalize`: the session's two tokens (contract §2.12).
struct FinalizeMFASignInResponse: SessionTokensAnswer {
    static let schema = "GoogleCloudIdentitytoolkitV2FinalizeMfaSignInResponse"
    var idToken: String
    var refreshToken: String
}
