/// The answer of `v2/accounts/mfaEnrollment:finalize`: the new session's two tokens (contract
/// §2.9); every other session ended with the enrollment.
struct FinalizeMFAEnrollmentResponse: SessionTokensAnswer {
    static let schema = "GoogleCloudIdentitytoolkitV2FinalizeMfaEnrollmentResponse"
    var idToken: String
    var refreshToken: String
}
